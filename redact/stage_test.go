package redact_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/tool"
)

type stageOut struct {
	Location string `json:"location" privacy:"url"`
	Host     string `json:"host" privacy:"host"`
	Note     string `json:"note" privacy:"plain"`
}

// callAs runs one call of t through a caller stage (as entitlement sets
// it) and the privacy stage, and returns the result's structured content
// and the mode the tool saw in its context.
func callAs(t *testing.T, s *redact.Stage, tl *tool.Tool, tenant string) (map[string]string, string) {
	t.Helper()
	setCaller := func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, c *tool.Call) tool.Outcome {
			if tenant != "" {
				c.SetCaller(tool.Caller{Credential: "cred", Tenant: tenant})
			}
			return next(ctx, c)
		}
	}
	var seen string
	probe := func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, c *tool.Call) tool.Outcome {
			if r, ok := redact.FromContext(ctx); ok {
				seen = string(r.Mode())
			}
			return next(ctx, c)
		}
	}
	h := tool.Chain(tool.Invoke, setCaller, s.Middleware(), probe)
	out := h(context.Background(), tool.NewCall(tl, nil, tool.CallEnv{}))
	if out.Result == nil || out.Result.IsError {
		t.Fatalf("call failed: %+v", out)
	}
	var got map[string]string
	if err := json.Unmarshal(out.Result.Structured, &got); err != nil {
		t.Fatal(err)
	}
	if text := out.Result.Content[0].Text; text != string(out.Result.Structured) {
		t.Errorf("text %s differs from structured %s", text, out.Result.Structured)
	}
	return got, seen
}

func TestStage(t *testing.T) {
	tl, err := tool.New(tool.Def{Name: "probe", Description: "Probes.", Annotations: tool.Annotations{ReadOnly: true},
		Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto}},
		func(context.Context, *tool.Call, struct{}) (stageOut, error) {
			return stageOut{Location: "https://u:pw@example.com/cb?code=abc", Host: "db.example.com",
				Note: "key ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	s, err := redact.NewStage(&redact.StageOptions{Mode: redact.Off, Tenants: map[string]redact.Mode{"acme": redact.Strict, "beta": redact.Balanced},
		PseudonymKey: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	// The server's mode, off: nothing changes, for an unknown caller and
	// a tenant without a mode of its own.
	for _, tenant := range []string{"", "other"} {
		got, mode := callAs(t, s, tl, tenant)
		if mode != "off" || got["location"] != "https://u:pw@example.com/cb?code=abc" || !strings.HasPrefix(got["note"], "key ghp_") {
			t.Errorf("tenant %q: mode %s, %v", tenant, mode, got)
		}
	}
	// Balanced: the typed pass cleans the URL, the text pass the token in
	// a plain field; the host stays.
	got, mode := callAs(t, s, tl, "beta")
	if mode != "balanced" || got["location"] != "https://example.com/cb?code=REDACTED" || got["host"] != "db.example.com" ||
		strings.Contains(got["note"], "ghp_") {
		t.Errorf("balanced: %v", got)
	}
	// Strict: the host too.
	got, mode = callAs(t, s, tl, "acme")
	if mode != "strict" || !strings.HasPrefix(got["host"], "host-") {
		t.Errorf("strict: %v", got)
	}
	if s.Questions().Mode() != redact.Balanced || s.ForTenant("acme").Mode() != redact.Strict || s.ForTenant("nobody").Mode() != redact.Off {
		t.Error("the stage's redactors are not those of the options")
	}
	if _, err := redact.NewStage(&redact.StageOptions{Mode: "loud"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
