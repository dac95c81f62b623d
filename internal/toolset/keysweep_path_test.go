package toolset

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/mcp"
)

const pathToken = "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"

func scanPathTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "svc", "conf"), 0o755)
	os.WriteFile(filepath.Join(dir, "svc", "conf", "app.env"), []byte("A=1\nTOKEN="+pathToken+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "svc", "README.md"), []byte("nothing here\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "debug.log"), []byte("TOKEN="+pathToken+"\n"), 0o644)
	return dir
}

// With a workspace, keysweep_scan_path scans a tree (honouring .gitignore)
// and reports each file's findings by its path in the workspace, never
// the value.
func TestScanPathInWorkspace(t *testing.T) {
	dir := scanPathTree(t)
	srv := privacyServer(t, registryWith(t, Deps{Workspace: []string{dir}}), "off")
	raw := srv("keysweep_scan_path", `{"path":"svc"}`)
	if strings.Contains(string(raw), pathToken[4:20]) {
		t.Fatal("the secret reached the result")
	}
	var res ScanPathResult
	json.Unmarshal(structured(t, raw), &res)
	if res.Status != "completed" || res.FilesScanned != 2 || len(res.Files) != 1 || res.Files[0].Path != "svc/conf/app.env" ||
		res.Summary.Total != 1 || res.RiskLevel != "high" && res.RiskLevel != "critical" {
		t.Fatalf("%+v", res)
	}
	json.Unmarshal(structured(t, srv("keysweep_scan_path", `{"path":"`+dir+`"}`)), &res)
	if res.Skipped["ignored"] != 1 || res.FilesScanned != 3 {
		t.Errorf("whole workspace: %+v", res)
	}
	json.Unmarshal(structured(t, srv("keysweep_scan_path", `{"path":"svc","max_files":1}`)), &res)
	if res.Status != "truncated" || res.FilesScanned != 1 {
		t.Errorf("max_files: %+v", res)
	}
}

// Nothing outside the workspace is read: not by an absolute path, not by
// "..", not through a symbolic link that leads out.
func TestScanPathStaysInside(t *testing.T) {
	dir, outside := scanPathTree(t), t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.env"), []byte("TOKEN="+pathToken+"\n"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "escape"))
	srv := privacyServer(t, registryWith(t, Deps{Workspace: []string{dir}}), "off")
	for _, p := range []string{outside, filepath.Join(outside, "secret.env"), "../" + filepath.Base(outside), "escape", "escape/secret.env", "/etc/passwd"} {
		resp := srv("keysweep_scan_path", fmt.Sprintf(`{"path":%q}`, p))
		if code := errorCode(resp); code != CodePathNotAllowed && code != CodeFileNotFound {
			t.Errorf("%s: %s", p, resp)
		}
		if strings.Contains(string(resp), outside) {
			t.Errorf("%s: the error names the path", p)
		}
	}
	// The walk never follows the link either.
	var res ScanPathResult
	json.Unmarshal(structured(t, srv("keysweep_scan_path", `{"path":"."}`)), &res)
	if res.Skipped["symlink"] != 1 || res.Summary.Total != 1 {
		t.Errorf("%+v", res)
	}
}

// Without a workspace the tool is offered only where client roots may be
// read (a local server), and listed only to a client that declares roots;
// it then scans under the roots the client gives.
func TestScanPathClientRoots(t *testing.T) {
	if reg := registryWith(t, Deps{}); func() bool { _, ok := reg.Lookup("keysweep_scan_path"); return ok }() {
		t.Fatal("registered with neither a workspace nor client roots")
	}
	dir := scanPathTree(t)
	reg := registryWith(t, Deps{ClientRoots: true})
	srv := mcp.NewServer(reg, &mcp.Options{StateKey: []byte("0123456789abcdef0123456789abcdef")})
	t.Cleanup(srv.Close)
	send := func(caps, method, params string) map[string]json.RawMessage {
		msg := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
		var env struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		raw := srv.ServeMessage(context.Background(), []byte(msg), mcp.SinkFunc(func([]byte) error { return nil }))
		json.Unmarshal(raw, &env)
		return env.Result
	}
	listed := func(caps string) bool {
		return strings.Contains(string(send(caps, "tools/list", "")["tools"]), `"keysweep_scan_path"`)
	}
	if listed(`{}`) || !listed(`{"roots":{}}`) {
		t.Fatalf("listed without roots %v, with roots %v", listed(`{}`), listed(`{"roots":{}}`))
	}
	call := `"name":"keysweep_scan_path","arguments":{"path":"svc"},`
	first := send(`{"roots":{}}`, "tools/call", call)
	if string(first["resultType"]) != `"input_required"` || !strings.Contains(string(first["inputRequests"]), "roots/list") {
		t.Fatalf("first round: %v", first)
	}
	var reqs map[string]json.RawMessage
	json.Unmarshal(first["inputRequests"], &reqs)
	var key string
	for k := range reqs {
		key = k
	}
	roots := fmt.Sprintf(`{"roots":[{"uri":%q},{"uri":"https://example.com/not-a-dir"}]}`, (&url.URL{Scheme: "file", Path: dir}).String())
	second := send(`{"roots":{}}`, "tools/call", call+`"inputResponses":{"`+key+`":`+roots+`},"requestState":`+string(first["requestState"])+`,`)
	var res ScanPathResult
	if err := json.Unmarshal(second["structuredContent"], &res); err != nil || res.Summary.Total != 1 || len(res.Files) != 1 || res.Files[0].Path != "svc/conf/app.env" {
		t.Fatalf("second round: %v %s", err, second["structuredContent"])
	}
}
