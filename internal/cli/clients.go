package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file prints how each MCP client connects to a serving Warden. No
// snippet carries the token itself: each client reads it from the
// environment (WARDEN_TOKEN), asks for it once (VS Code), or gets it
// through a variable the bridge expands (Claude Desktop over mcp-remote),
// so it never lands on a command line that a shell history or npm's logs
// keep. docs/clients.md says the same at length; keep them in step.

// tokenEnv is the environment variable every snippet reads the token from.
const tokenEnv = "WARDEN_TOKEN"

// tokenFilePrefix names the files where warden serve leaves its
// development token (0600, in the state directory), one per listener,
// named by its port: dev-token-8787 for the default listener. It can then
// reach the environment without being typed:
// export WARDEN_TOKEN="$(cat <file>)". Two servers sharing a state
// directory on different ports each keep their own, so the second to
// start does not replace the first one's token with a token for itself.
const tokenFilePrefix = "dev-token-"

// devTokenFile is the development token file of the server listening on
// listen (host:port) with state directory dir.
func devTokenFile(dir, listen string) (string, error) {
	_, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w", listen, err)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return "", fmt.Errorf("listen address %q: the port is not a port number from 1 to 65535", listen)
	}
	return filepath.Join(dir, tokenFilePrefix+port), nil
}

// tokenFilePorts lists the ports whose servers left a development token in
// dir, in ascending order.
func tokenFilePorts(dir string) []int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var ports []int
	for _, e := range entries {
		p, ok := strings.CutPrefix(e.Name(), tokenFilePrefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if n, err := strconv.ParseUint(p, 10, 16); err == nil && n > 0 && strconv.FormatUint(n, 10) == p {
			ports = append(ports, int(n))
		}
	}
	slices.Sort(ports)
	return ports
}

// pruneTokenFiles removes the development token files in dir, other than
// keep, that are older than the token's lifetime: the tokens in them have
// expired, and servers on passing ports (--listen 127.0.0.1:0) would
// otherwise leave one each behind.
func pruneTokenFiles(dir, keep string, lifetime time.Duration, now time.Time) {
	for _, port := range tokenFilePorts(dir) {
		path := filepath.Join(dir, tokenFilePrefix+strconv.Itoa(port))
		if path == keep {
			continue
		}
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > lifetime {
			_ = os.Remove(path)
		}
	}
}

// clientSnippets are the configurations, by client, for a server at url.
type clientSnippets struct {
	ClaudeCode, VSCode, Cursor, ClaudeDesktop string
}

func indentJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// snippetsFor builds the client configurations for url; binary is the
// warden executable for stdio (a placeholder when it is a temporary
// go run build).
func snippetsFor(url, binary string) clientSnippets {
	type vsServer struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	type vsInput struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		Description string `json:"description"`
		Password    bool   `json:"password"`
	}
	vscode := struct {
		Servers map[string]vsServer `json:"servers"`
		Inputs  []vsInput           `json:"inputs"`
	}{
		Servers: map[string]vsServer{"warden": {Type: "http", URL: url, Headers: map[string]string{"Authorization": "Bearer ${input:warden-token}"}}},
		Inputs:  []vsInput{{Type: "promptString", ID: "warden-token", Description: "Warden bearer token (warden token prints one)", Password: true}},
	}
	type cursorServer struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	cursor := map[string]any{"mcpServers": map[string]cursorServer{"warden": {URL: url, Headers: map[string]string{"Authorization": "Bearer ${env:" + tokenEnv + "}"}}}}
	type stdioServer struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	desktop := map[string]any{"mcpServers": map[string]stdioServer{"warden": {Command: binary, Args: []string{"stdio"}}}}
	return clientSnippets{
		ClaudeCode:    "claude mcp add --transport http warden " + url + " --header 'Authorization: Bearer ${" + tokenEnv + "}'",
		VSCode:        indentJSON(vscode),
		Cursor:        indentJSON(cursor),
		ClaudeDesktop: indentJSON(desktop),
	}
}

// wardenBinary is the path of this executable, or a placeholder when it
// is a temporary build of go run that will be gone tomorrow.
func wardenBinary() string {
	exe, err := os.Executable()
	if err != nil || strings.Contains(exe, "go-build") || strings.HasPrefix(exe, os.TempDir()) {
		return "/path/to/warden"
	}
	if abs, err := filepath.Abs(exe); err == nil {
		return abs
	}
	return exe
}

// oauthSnippets are the configurations of clients that sign in through
// Warden's own authorization server: the URL alone.
func oauthSnippets(url string) clientSnippets {
	type vsServer struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	}
	type cursorServer struct {
		URL string `json:"url"`
	}
	return clientSnippets{
		ClaudeCode: "claude mcp add --transport http warden " + url,
		VSCode:     indentJSON(map[string]any{"servers": map[string]vsServer{"warden": {Type: "http", URL: url}}}),
		Cursor:     indentJSON(map[string]any{"mcpServers": map[string]cursorServer{"warden": {URL: url}}}),
	}
}

// printClientConfig tells the person who started warden serve how to
// connect each client. token and tokenFile are the development token and
// where it was saved; both are empty when tokens come from an external
// issuer. oauth says that Warden is its own authorization server (the
// local profile), so clients can connect without a token.
func printClientConfig(w io.Writer, url, token, tokenFile string, oauth bool) {
	s := snippetsFor(url, wardenBinary())
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	if oauth {
		o := oauthSnippets(url)
		p("Connect without a token: clients that support MCP authorization open a Warden page in your\n")
		p("browser that names the client and the tools it will reach; click Allow, and the client keeps\n")
		p("access (it renews itself; unused for 30 days, it asks again).\n\n")
		p("Claude Code:\n  %s\n\n", o.ClaudeCode)
		p("VS Code, .vscode/mcp.json or the user mcp.json:\n%s\n\n", indent(o.VSCode))
		p("Cursor, ~/.cursor/mcp.json:\n%s\n\n", indent(o.Cursor))
		p("MCP Inspector: npx @modelcontextprotocol/inspector, transport Streamable HTTP, URL %s, Connect.\n\n", url)
		p("Or paste a token instead (for clients without MCP authorization, and scripts):\n\n")
	}
	if token != "" {
		p("Development token (12 hours, every tool; mint others with warden token):\n%s\n\n", token)
		p("Put it in the environment of the client you start, not on a command line:\n  export %s=\"$(cat %s)\"\n\n", tokenEnv, shellQuote(tokenFile))
	} else {
		p("Clients send a token from the issuer; put it in %s as below.\n\n", tokenEnv)
	}
	p("Claude Code (reads %s when it connects):\n  %s\n\n", tokenEnv, s.ClaudeCode)
	p("VS Code, .vscode/mcp.json or the user mcp.json (asks for the token once, keeps it in its secret storage):\n%s\n\n", indent(s.VSCode))
	p("Cursor, ~/.cursor/mcp.json (reads %s from the environment Cursor starts in):\n%s\n\n", tokenEnv, indent(s.Cursor))
	p("Claude Desktop, claude_desktop_config.json (starts Warden itself over stdio; no token):\n%s\n\n", indent(s.ClaudeDesktop))
	p("docs/clients.md has more, stdio for every client among it.\n")
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// shellQuote quotes a path for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
