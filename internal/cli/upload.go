package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/internal/toolset"
)

type uploadFlags struct {
	url       string
	tokenFile string
	config    string
	stateDir  string
	asJSON    bool
}

func (e *env) uploadCommand() *cobra.Command {
	var f uploadFlags
	c := &cobra.Command{
		Use:   "upload FILE",
		Short: "Upload a file to a Warden server for the bininspect tools",
		Long: "Upload a file to a Warden server (PUT /uploads) and print its blob reference,\n" +
			"sha256:..., which bininspect_open takes as blob. The reference works for your\n" +
			"tenant only and lapses after a day unused. The bearer token comes from\n" +
			"WARDEN_TOKEN, else from --token-file, else from the development token that\n" +
			"warden serve leaves in the state directory for the server's port\n" +
			"(dev-token-8787 for the default listener); it is never a command-line argument.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.upload(cmd, args[0], f)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.url, "url", "", "the server's MCP endpoint or upload URL (default: the configured public URL)")
	fl.StringVar(&f.tokenFile, "token-file", "", "file holding the bearer token (default: WARDEN_TOKEN, then the state directory's dev-token-PORT for the server's port)")
	fl.StringVar(&f.config, "config", "", "configuration file (YAML) naming the server's public URL")
	fl.StringVar(&f.stateDir, "state-dir", "", "state directory holding the development token")
	fl.BoolVar(&f.asJSON, "json", false, "print the server's JSON answer")
	return c
}

// uploadURL turns the server's endpoint (or its upload URL) into the
// upload URL: the endpoint's last path segment replaced by /uploads.
func uploadURL(raw, endpointPath string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--url %q: want an http(s) URL such as https://warden.example.com/mcp", raw)
	}
	switch p := strings.TrimSuffix(u.Path, "/"); {
	case strings.HasSuffix(p, toolset.UploadPath):
	case endpointPath != "" && strings.HasSuffix(p, endpointPath):
		u.Path = strings.TrimSuffix(p, endpointPath) + toolset.UploadPath
	default:
		u.Path = p + toolset.UploadPath
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

func (e *env) upload(cmd *cobra.Command, path string, f uploadFlags) error {
	fail := func(err error) error { return &exitError{code: ExitError, err: err} }
	cfg, err := loadConfig(f.config, os.Getenv)
	if err != nil {
		return fail(err)
	}
	if f.stateDir != "" {
		cfg.StateDir = f.stateDir
	}
	if cfg, err = cfg.withDefaults(); err != nil {
		return fail(err)
	}
	target := f.url
	if target == "" {
		target = cfg.PublicURL
	}
	if target, err = uploadURL(target, cfg.Path); err != nil {
		return fail(err)
	}
	token := strings.TrimSpace(os.Getenv("WARDEN_TOKEN"))
	if token == "" {
		tf := f.tokenFile
		if tf == "" {
			// The development token of the server at the target's port.
			u, _ := url.Parse(target)
			if tf, err = devTokenFile(cfg.StateDir, net.JoinHostPort(u.Hostname(), strconv.Itoa(int(effectivePort(u))))); err != nil {
				return fail(err)
			}
		}
		b, err := os.ReadFile(tf)
		if err != nil {
			return fail(fmt.Errorf("no token: set WARDEN_TOKEN or give --token-file (%v)", err))
		}
		token = strings.TrimSpace(string(b))
	}
	file, err := os.Open(path)
	if err != nil {
		return fail(err)
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return fail(err)
	}
	if !fi.Mode().IsRegular() {
		return fail(fmt.Errorf("%s: not a regular file", path))
	}
	req, err := http.NewRequestWithContext(cmd.Context(), http.MethodPut, target, file)
	if err != nil {
		return fail(err)
	}
	req.ContentLength = fi.Size()
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/octet-stream")
	client := &http.Client{Timeout: 15 * time.Minute}
	resp, err := client.Do(req)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return fail(errors.New(refusalText(resp, body, token)))
	}
	var res toolset.UploadResult
	if err := json.Unmarshal(body, &res); err != nil || res.Blob == "" {
		return fail(errors.New("the server's answer is not an upload result"))
	}
	if f.asJSON {
		_, err = e.stdout.Write(body)
		return err
	}
	_, err = fmt.Fprintln(e.stdout, res.Blob)
	return err
}

// refusalText says why the server refused an upload: the status, then
// the server's public error code and message, from whichever shape it
// answered in ({"error":{"code","message"}} from the upload endpoint and
// the rate limit, {"error","error_description"} from authentication, or
// the WWW-Authenticate challenge), and when to retry. The text is the
// server's, so it is cleaned of control characters and bounded; the token
// itself never appears in it, even if a server echoed it.
func refusalText(resp *http.Response, body []byte, token string) string {
	var code, msg string
	var retry int64
	var nested struct {
		Error struct {
			Code       string `json:"code"`
			Message    string `json:"message"`
			RetryAfter int64  `json:"retryAfterSeconds"`
		} `json:"error"`
	}
	var flat struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
		RetryAfter  int64  `json:"retryAfterSeconds"`
	}
	switch {
	case json.Unmarshal(body, &nested) == nil && nested.Error.Code != "":
		code, msg, retry = nested.Error.Code, nested.Error.Message, nested.Error.RetryAfter
	case json.Unmarshal(body, &flat) == nil && flat.Error != "":
		code, msg, retry = flat.Error, flat.Description, flat.RetryAfter
	default:
		code, msg = challengeParam(resp.Header.Get("WWW-Authenticate"), "error"), challengeParam(resp.Header.Get("WWW-Authenticate"), "error_description")
	}
	if retry <= 0 {
		retry, _ = strconv.ParseInt(resp.Header.Get("Retry-After"), 10, 64)
	}
	text := "the server answered " + resp.Status
	if code = cleanServerText(code, token, 64); code != "" {
		text += ": " + code
	}
	if msg = cleanServerText(msg, token, 400); msg != "" {
		text += ": " + msg
	}
	if code == "" && msg == "" && resp.StatusCode == http.StatusNotFound {
		text += " (is --url the server's MCP endpoint, such as https://warden.example.com/mcp?)"
	}
	if retry > 0 {
		text += fmt.Sprintf(" (retry in %d s)", retry)
	}
	return text
}

// challengeParam reads one parameter of a WWW-Authenticate challenge
// (name="value", RFC 9110 quoted-string), or "".
func challengeParam(h, name string) string {
	for i := 0; i < len(h); {
		j := strings.Index(h[i:], name+`="`)
		if j < 0 {
			return ""
		}
		start := i + j
		if start > 0 && h[start-1] != ' ' && h[start-1] != ',' {
			i = start + len(name)
			continue
		}
		var b strings.Builder
		for k := start + len(name) + 2; k < len(h); k++ {
			switch c := h[k]; c {
			case '\\':
				if k+1 < len(h) {
					k++
					b.WriteByte(h[k])
				}
			case '"':
				return b.String()
			default:
				b.WriteByte(c)
			}
		}
		return ""
	}
	return ""
}

// cleanServerText keeps a server's text fit for a terminal: control
// characters dropped, at most max characters, the token masked.
func cleanServerText(s, token string, max int) string {
	if token != "" {
		s = strings.ReplaceAll(s, token, "[token]")
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return s
}
