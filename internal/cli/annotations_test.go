package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/internal/testbin"
	"github.com/warden-mcp/warden/internal/toolset"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/store/postgres"
	"github.com/warden-mcp/warden/store/sqlite"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/tooltest"
)

// replica is one Warden process's view of the annotations: its store
// handle, its tools, and a view resolver that lays the caller's names
// over the open view, as the view registry does.
type replica struct {
	t     *testing.T
	reg   *tool.Registry
	layer *toolset.AnnotationLayer
	view  *binview.View
}

func newReplica(t *testing.T, st annotation.Store, v *binview.View) *replica {
	t.Helper()
	r := &replica{t: t, reg: tool.NewRegistry(), layer: toolset.NewAnnotationLayer(st), view: v}
	if err := toolset.Register(r.reg, toolset.Deps{Annotations: r.layer}, toolset.Selection{Edition: edition}); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *replica) call(tenant, name, args string) map[string]any {
	r.t.Helper()
	ctx := auth.WithPrincipal(context.Background(), auth.Principal{Subject: "s", Credential: "cred-" + tenant, Tenant: tenant, Entitlements: []string{"*"}})
	rep, err := tooltest.Invoke(ctx, r.reg, name, args, &tooltest.InvokeOptions{ServerOptions: &mcp.Options{
		Middleware: []tool.Middleware{tool.ResolveViews(func(ctx context.Context, _ *tool.Call, _ string) (tool.View, []tool.Warning, error) {
			p, _ := auth.PrincipalFrom(ctx)
			ov, err := r.layer.View(ctx, p.Tenant, r.view)
			return ov, nil, err
		})},
	}})
	if err != nil || rep.Result == nil {
		r.t.Fatalf("%s: %v %v", name, err, rep)
	}
	if code := rep.Result.ErrorCode(); code != "" {
		r.t.Fatalf("%s %s: %s", name, args, rep.Result.Content[0].Text)
	}
	var out map[string]any
	if err := json.Unmarshal(rep.Result.StructuredContent, &out); err != nil {
		r.t.Fatal(err)
	}
	return out
}

// goBinary opens a small Go program, built once per toolchain.
func goBinary(t *testing.T) *binview.View {
	t.Helper()
	out := testbin.Go(t, "ann", testbin.GoProgram{Ldflags: "-s -w", Files: map[string]string{
		"main.go": "package main\n\nvar name = \"ann\"\n\n//go:noinline\nfunc decode(b string) int { return len(b) * 3 }\n\nfunc main() { println(decode(name)) }\n",
		"go.mod":  "module example.com/ann\n\ngo 1.22\n",
	}})
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	v, err := binview.Open(context.Background(), "ann", data, &binview.Options{MaxFileSize: binview.LocalMaxFileSize})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

// annotate sets a comment and a name through one replica.
func annotate(r *replica) {
	r.call("acme", "bininspect_comment_set", `{"address":"main.decode","text":"triples the length"}`)
	r.call("acme", "bininspect_symbol_rename", `{"address":"main.decode","name":"length_x3"}`)
}

// expectAnnotations checks another replica sees them: listed, and the
// name resolving in an address expression.
func expectAnnotations(t *testing.T, r *replica) {
	t.Helper()
	list := r.call("acme", "bininspect_annotations", `{}`)
	if list["total"].(float64) != 2 {
		t.Fatalf("annotations: %v", list)
	}
	info := r.call("acme", "bininspect_function_info", `{"function":"length_x3"}`)
	if info["name"] != "length_x3" || info["comment"] != "triples the length" || info["name_source"] != "user" {
		t.Errorf("function_info by the name set elsewhere: %v", info)
	}
	other := r.call("globex", "bininspect_annotations", `{"history":true}`)
	if other["total"].(float64) != 0 {
		t.Errorf("another tenant sees %v", other)
	}
}

// TestAnnotationsSurviveARestart: a new store handle on the same SQLite
// file (a restarted process with the same state directory) sees what the
// first one wrote.
func TestAnnotationsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	v := goBinary(t)
	st, err := sqlite.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	annotate(newReplica(t, st, v))
	st.Close()

	st2, err := sqlite.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	// A new view of the same file, too.
	data := v.Data()
	v2, err := binview.Open(context.Background(), "again", data, &binview.Options{MaxFileSize: binview.LocalMaxFileSize})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	expectAnnotations(t, newReplica(t, st2, v2))
}

// TestAnnotationsReachAnotherReplica: two replicas on one PostgreSQL
// schema; what one writes, the other lists and resolves at once.
func TestAnnotationsReachAnotherReplica(t *testing.T) {
	dsn := os.Getenv("WARDEN_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("WARDEN_TEST_POSTGRES not set")
	}
	schema := "warden_test_ann_" + strings.ToLower(rand.Text()[:10])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, dsn); err == nil {
			_, _ = conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
			conn.Close(ctx)
		}
	})
	open := func() *postgres.Store {
		st, err := postgres.Open(context.Background(), dsn, &postgres.Options{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Close)
		return st
	}
	v := goBinary(t)
	one, two := newReplica(t, open(), v), newReplica(t, open(), v)
	// The second replica has loaded the (empty) state before the first
	// writes: it must pick up the new entries, not serve a stale cache.
	if got := two.call("acme", "bininspect_annotations", `{}`); got["total"].(float64) != 0 {
		t.Fatalf("fresh schema: %v", got)
	}
	annotate(one)
	expectAnnotations(t, two)
	two.call("acme", "bininspect_comment_set", `{"address":"length_x3","text":"edited on replica two"}`)
	info := one.call("acme", "bininspect_function_info", `{"function":"length_x3"}`)
	if info["comment"] != "edited on replica two" {
		t.Errorf("replica one after replica two's edit: %v", info)
	}
}
