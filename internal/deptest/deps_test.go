package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/warden-mcp/warden"

// rules maps a package (or a prefix ending in "/...") to the module
// packages it must not import, directly or indirectly.
var rules = []struct {
	pkg       string
	forbidden []string
	why       string
}{
	{"secretscan/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "safehttp/...", "webscan/..."}, "engines are leaves"},
	{"safehttp/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "secretscan/...", "webscan/..."}, "engines are leaves"},
	{"webscan/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "safehttp/..."}, "engines are leaves; the fetcher is injected"},
	{"binview/...", []string{"tool", "tool/tooltest/...", "mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "policy/...", "secretscan/...", "safehttp/...", "webscan/..."}, "the binary views engine is a leaf (it may use tool/addrexpr and errcode)"},
	{"binview/disasm/...", []string{"binview", "binview/cfi/...", "binview/funcs/..."}, "the decoder knows nothing of files or analysis"},
	{"binview/cfi/...", []string{"binview", "binview/disasm/...", "binview/funcs/..."}, "call-frame parsing stands alone"},
	{"binview/funcs/...", []string{"binview"}, "analysis takes plain inputs; the view feeds it, not the other way round"},
	{"binview/budget/...", []string{"binview", "binview/funcs/...", "binview/disasm/...", "binview/cfi/...", "binview/isolate/..."}, "the analysis budget is a leaf every stage takes from"},
	{"codec/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/...", "auth/...", "limits/...", "store/...", "policy/...", "redact/...", "secretscan/...", "safehttp/...", "webscan/..."}, "the utilities engine is a leaf"},
	{"jwtinspect/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/...", "auth/...", "limits/...", "store/...", "policy/...", "redact/...", "secretscan/...", "safehttp/...", "webscan/...", "codec/..."}, "the JWT engine is a leaf; it shares nothing with the server's own token checks"},
	{"httpparse/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/...", "auth/...", "limits/...", "store/...", "policy/...", "redact/...", "secretscan/...", "safehttp/...", "webscan/..."}, "the HTTP message parser is a leaf"},
	{"httpsend/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/...", "auth/...", "limits/...", "store/...", "policy/...", "redact/...", "secretscan/...", "webscan/..."}, "the request engine knows only the SSRF-proof client; the scope comes in as a function"},
	{"tool/addrexpr/...", []string{"tool", "mcp/...", "internal/toolset/...", "internal/cli/..."}, "the expression engine is a leaf"},
	{"errcode", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/...", "auth/...", "limits/...", "store/...", "secretscan/...", "safehttp/...", "webscan/..."}, "the shared error type is a leaf every package may use"},
	{"viewstore/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "policy/...", "binview/..."}, "a domain package: the stores implement it"},
	{"finding/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "policy/...", "redact/..."}, "a domain package: the stores implement it"},
	{"approval/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "policy/..."}, "a domain package: the stores implement it"},
	{"annotation/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "policy/...", "binview/..."}, "a domain package: the stores implement it, the tools use it"},
	{"internal/jsonwalk/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/cli/..."}, "a leaf"},
	{"internal/httplimit/...", []string{"tool/...", "mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "policy/..."}, "a leaf: the protocol and the upload endpoint share it"},
	{"tool", []string{"mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "secretscan/...", "safehttp/...", "webscan/..."}, "the SDK knows nothing of the protocol or the tools"},
	{"tool/tooltest/...", []string{"internal/toolset/...", "internal/cli/..."}, "the author harness serves any registry"},
	{"mcp/...", []string{"internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "secretscan/...", "safehttp/...", "webscan/..."}, "the protocol serves any registry"},
	{"internal/toolset/...", []string{"mcp/...", "internal/cli/...", "store/..."}, "tool bindings are adapters around engines"},
	{"auth/asstore/...", []string{"auth", "auth/localas/..."}, "the authorization server's records know nothing of the server or of tokens"},
	{"auth/...", []string{"mcp/...", "internal/toolset/...", "internal/cli/...", "store/..."}, "request-path controls stand alone"},
	{"credential/...", []string{"mcp/...", "tool/...", "internal/toolset/...", "internal/cli/...", "store/...", "policy/...", "limits/..."}, "a domain package: the stores implement it"},
	{"statestore/...", []string{"mcp/...", "tool/...", "internal/toolset/...", "internal/cli/...", "store/...", "auth/...", "limits/...", "policy/..."}, "a domain package: the stores implement it, the protocol engine uses it"},
	{"telemetry/...", []string{"mcp/...", "policy/...", "internal/toolset/...", "internal/cli/...", "store/...", "secretscan/...", "safehttp/...", "webscan/...", "binview/..."}, "telemetry observes the request path through a call stage and the observers the wiring feeds it, without importing the engines it observes"},
	{"limits/...", []string{"mcp/...", "internal/toolset/...", "internal/cli/...", "store/..."}, "the domain does not know its storage"},
	{"store/...", []string{"mcp/...", "tool/...", "internal/toolset/...", "internal/cli/..."}, "storage adapters implement the domain's interfaces"},
	{"redact/...", []string{"mcp/...", "internal/toolset/...", "internal/cli/...", "store/...", "auth/...", "limits/...", "policy/...", "safehttp/...", "webscan/..."}, "the privacy engine sees only results, the SDK's types and the scanner"},
	{"policy/...", []string{"mcp/...", "internal/toolset/...", "internal/cli/...", "secretscan/...", "safehttp/...", "webscan/..."}, "controls are stages of the SDK's call path (tool.Middleware); they know no protocol"},
	{"privacy", []string{"tool/...", "redact/...", "mcp/...", "internal/toolset/...", "internal/...", "auth/...", "limits/...", "store/...", "policy/...", "secretscan/...", "errcode"}, "the privacy vocabulary is a leaf the SDK and the privacy engine share"},
	{"examples/...", []string{"internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "secretscan/...", "safehttp/...", "webscan/..."}, "examples use only the public SDK"},
	{"console/...", []string{"mcp/...", "internal/toolset/...", "internal/cli/...", "store/...", "secretscan/...", "safehttp/...", "webscan/...", "binview/..."}, "the console is an adapter over the domain's stores and the policy's approval keys; the wiring hands it what it shows"},
	{"mcp/...", []string{"console/..."}, "the protocol serves the console as any other handler tree, without knowing it"},
	{"plugin", []string{"mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "policy/...", "redact/...", "binview/...", "secretscan/...", "safehttp/...", "webscan/..."}, "the plugin host knows the SDK only; what plugins may reach comes in as plugin.Services"},
	{"plugin/kit/...", []string{"plugin", "mcp/...", "internal/toolset/...", "internal/cli/...", "auth/...", "limits/...", "store/...", "policy/...", "redact/...", "binview/...", "secretscan/...", "safehttp/...", "webscan/..."}, "the Go kit is compiled into plugins: the SDK's schemas and nothing of the server"},
}

func matches(pattern, pkg string) bool {
	if p, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == p || strings.HasPrefix(pkg, p+"/")
	}
	return pkg == pattern
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module+"/")
		if !ok {
			continue
		}
		seen++
		for _, r := range rules {
			if !matches(r.pkg, pkg) {
				continue
			}
			for _, dep := range fields[1:] {
				d, ok := strings.CutPrefix(dep, module+"/")
				if !ok {
					continue
				}
				for _, f := range r.forbidden {
					if matches(f, d) {
						t.Errorf("%s imports %s: %s", pkg, d, r.why)
					}
				}
			}
		}
	}
	if seen < 5 {
		t.Fatalf("saw only %d packages; go list output was:\n%s", seen, out)
	}
}

func TestPackageComments(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{.Doc}}|{{.Name}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		if len(parts) == 3 && strings.TrimSpace(parts[1]) == "" {
			t.Errorf("%s has no package comment", parts[0])
		}
	}
}

// The official SDK is the peer we test and benchmark against; it must
// never be linked into the warden binary.
func TestWardenBinaryDoesNotLinkThePeerSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/warden").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/modelcontextprotocol/go-sdk") {
			t.Errorf("cmd/warden depends on %s", dep)
		}
	}
}
