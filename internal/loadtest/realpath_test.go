package loadtest_test

// The real path: warden serve as a person starts it, with every default
// control (authentication, the gates, the privacy pass, the audit trail,
// the request log), beside the official Go SDK's server, in one run.
//
//	taskset -c 1 go test ./internal/loadtest -run '^$' -bench 'RealPath|StartUp' -count 5
//
// BenchmarkRealPath drives each server over loopback, 64 keep-alive
// connections with one request in flight each (package loadtest), for a
// warm-up and a window, and reports the server's CPU time per call as
// ns/op (user + system, from /proc; the stable figure on a shared
// machine), beside calls per second, p50, p99 and the client's own CPU per
// call. The servers run with GOMAXPROCS=1, pinned to CPU 0 when the
// machine has two or more (run the test itself on another, as above).
// The Warden side calls util_encode, a tool about as cheap as the SDK
// fixture's echo; impl=warden-engine is the protocol engine alone serving
// echo (cmd/wardenserver), without the controls warden serve puts around
// a call.
//
// With -realpath.baseline=PATH, a warden binary of another version is
// measured in the same run as impl=warden-baseline: before and after a
// change, on the same machine at the same time.
//
// BenchmarkStartUp starts each server and measures the CPU time its
// threads used until its first call was answered (from
// /proc/<pid>/task/*/schedstat, in nanoseconds), as ns/op. warden serve
// is measured on a new state directory (keys and database made) and on
// one it has used before.

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/warden-mcp/warden/internal/loadtest"
	"github.com/warden-mcp/warden/internal/loadtest/fixture"
	"github.com/warden-mcp/warden/internal/repotest"
)

var (
	realWindow = flag.Duration("realpath.window", 10*time.Second, "measured window of each BenchmarkRealPath run")
	realWarmup = flag.Duration("realpath.warmup", 2*time.Second, "warm-up before each window")
	realConns  = flag.Int("realpath.conns", 64, "keep-alive connections of BenchmarkRealPath")
	realBase   = flag.String("realpath.baseline", "", "a warden `binary` of another version, measured beside this one as impl=warden-baseline")
)

// binaries are built once per test binary, into a directory TestMain
// removes.
var binaries struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binaries.dir != "" {
		os.RemoveAll(binaries.dir)
	}
	os.Exit(code)
}

// buildBinaries builds warden, gosdkserver and wardenserver.
func buildBinaries(b *testing.B) string {
	b.Helper()
	if runtime.GOOS != "linux" {
		b.Skip("reads server CPU time from /proc: Linux only")
	}
	binaries.once.Do(func() {
		binaries.dir, binaries.err = os.MkdirTemp("", "warden-realpath-")
		if binaries.err != nil {
			return
		}
		// warden is built in its own module, as a person builds it; the
		// peer servers in this one.
		warden := exec.Command("go", "build", "-o", binaries.dir+string(filepath.Separator), "./cmd/warden")
		warden.Dir = repotest.Root(b)
		peers := exec.Command("go", "build", "-o", binaries.dir+string(filepath.Separator),
			"github.com/warden-mcp/warden/internal/loadtest/cmd/gosdkserver",
			"github.com/warden-mcp/warden/internal/loadtest/cmd/wardenserver")
		for _, cmd := range []*exec.Cmd{warden, peers} {
			if out, err := cmd.CombinedOutput(); err != nil {
				binaries.err = fmt.Errorf("go build: %v\n%s", err, out)
				return
			}
		}
	})
	if binaries.err != nil {
		b.Fatal(binaries.err)
	}
	return binaries.dir
}

// serverEnv is this process's environment without the settings that would
// make a server run other than by default (Warden's own variables and the
// collector's), plus extra.
func serverEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "WARDEN_") || k == "GOGC" || k == "GOMEMLIMIT" || k == "GOMAXPROCS" || k == "GODEBUG" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// freePort returns a loopback port nothing listens on now.
func freePort(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// server is one started server process.
type server struct {
	cmd   *exec.Cmd
	url   string
	req   fixture.Request // the call to drive it with
	token string          // a bearer token, for warden serve
	// tokenFiles are where warden serve writes its development token:
	// dev-token-PORT, or dev-token for a baseline older than per-listener
	// token files.
	tokenFiles []string
}

// start starts bin with args. pin runs it on CPU 0 with GOMAXPROCS=1 (the
// loopback runs); without it the server runs as a person would start it.
func start(b *testing.B, bin string, args []string, pin bool, stderr io.Writer) *exec.Cmd {
	b.Helper()
	env := serverEnv()
	if pin {
		env = serverEnv("GOMAXPROCS=1")
		if _, err := exec.LookPath("taskset"); err == nil && runtime.NumCPU() >= 2 {
			args = append([]string{"-c", "0", bin}, args...)
			bin = "taskset" // execs bin: the process id stays the server's
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout = io.Discard
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return cmd
}

// stop ends a server: SIGTERM, then SIGKILL after 10 s.
func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// startWarden starts warden serve (the binary warden in bins, or the
// binary bins names) with its defaults on a free port with the state
// directory state; the request log goes to a file there, as a service
// manager would keep it.
func startWarden(b *testing.B, bins, state string, pin bool) *server {
	b.Helper()
	bin := filepath.Join(bins, "warden")
	if st, err := os.Stat(bins); err == nil && !st.IsDir() {
		bin = bins
	}
	port := freePort(b)
	files := []string{filepath.Join(state, "dev-token-"+port), filepath.Join(state, "dev-token")}
	for _, f := range files {
		_ = os.Remove(f) // wait for this start's token
	}
	logf, err := os.OpenFile(filepath.Join(state, "stderr.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { logf.Close() })
	cmd := start(b, bin, []string{"serve", "--listen", "127.0.0.1:" + port, "--state-dir", state}, pin, logf)
	return &server{cmd: cmd, url: "http://127.0.0.1:" + port + "/mcp", req: fixture.WardenCall(), tokenFiles: files}
}

// startGoSDK starts the SDK's benchmark server (50 echo tools).
func startGoSDK(b *testing.B, bins string, pin bool) *server {
	b.Helper()
	port := freePort(b)
	cmd := start(b, filepath.Join(bins, "gosdkserver"), []string{"-addr", "127.0.0.1:" + port}, pin, io.Discard)
	return &server{cmd: cmd, url: "http://127.0.0.1:" + port + "/mcp", req: fixture.ToolsCall()}
}

// startEngine starts Warden's protocol engine alone (50 echo tools).
func startEngine(b *testing.B, bins string, pin bool) *server {
	b.Helper()
	port := freePort(b)
	cmd := start(b, filepath.Join(bins, "wardenserver"), []string{"-addr", "127.0.0.1:" + port}, pin, io.Discard)
	return &server{cmd: cmd, url: "http://127.0.0.1:" + port + "/mcp", req: fixture.ToolsCall()}
}

// header is the request's headers with the server's token.
func (s *server) header() http.Header {
	h := s.req.Header.Clone()
	if s.token != "" {
		h.Set("Authorization", "Bearer "+s.token)
	}
	return h
}

// firstAnswer waits until the server has answered its call: for warden
// serve, first until its development token is written to state. It
// polls every millisecond, from this process, so the server pays nothing
// for the wait but the answer itself.
func (s *server) firstAnswer(ctx context.Context, state string) error {
	if state != "" {
		for s.token == "" {
			for _, f := range s.tokenFiles {
				tok, err := os.ReadFile(f)
				if err == nil && len(bytes.TrimSpace(tok)) > 0 {
					s.token = string(bytes.TrimSpace(tok))
					break
				}
			}
			if s.token != "" {
				break
			}
			if err := pause(ctx); err != nil {
				return fmt.Errorf("no development token: %w", err)
			}
		}
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(s.req.Body))
		if err != nil {
			return err
		}
		req.Header = s.header()
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && bytes.Contains(body, s.req.Want) {
				return nil
			}
			return fmt.Errorf("first call: status %d: %.300s", resp.StatusCode, body)
		}
		if err := pause(ctx); err != nil {
			return fmt.Errorf("no answer: %w", err)
		}
	}
}

func pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Millisecond):
		return nil
	}
}

func BenchmarkRealPath(b *testing.B) {
	bins := buildBinaries(b)
	impls := []string{"warden-serve", "gosdk", "warden-engine"}
	if *realBase != "" {
		impls = append(impls, "warden-baseline")
	}
	for _, impl := range impls {
		b.Run("call/impl="+impl, func(b *testing.B) {
			var s *server
			state := ""
			switch impl {
			case "warden-serve":
				state = b.TempDir()
				s = startWarden(b, bins, state, true)
			case "warden-baseline":
				state = b.TempDir()
				s = startWarden(b, *realBase, state, true)
			case "gosdk":
				s = startGoSDK(b, bins, true)
			default:
				s = startEngine(b, bins, true)
			}
			defer stop(s.cmd)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := s.firstAnswer(ctx, state); err != nil {
				b.Fatal(err)
			}
			res, err := loadtest.Run(context.Background(), loadtest.Config{
				URL: s.url, Body: s.req.Body, Header: s.header(), Want: s.req.Want,
				Conns: *realConns, Warmup: *realWarmup, Duration: *realWindow,
				CPUTime:       loadtest.ProcessCPU(s.cmd.Process.Pid),
				ClientCPUTime: loadtest.ProcessCPU(os.Getpid()),
			})
			if err != nil {
				b.Fatal(err)
			}
			if res.Failures > 0 {
				b.Errorf("%d failed calls; first: %s", res.Failures, res.FirstFailure)
			}
			if res.ServerCPUPerRequest == 0 {
				b.Fatal("no server CPU time read")
			}
			b.ReportMetric(float64(res.ServerCPUPerRequest.Nanoseconds()), "ns/op")
			b.ReportMetric(res.PerSecond, "calls/s")
			b.ReportMetric(float64(res.P50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(res.P99.Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(res.ClientCPUPerRequest.Nanoseconds()), "client-ns/op")
		})
	}
}

func BenchmarkStartUp(b *testing.B) {
	bins := buildBinaries(b)
	cases := []struct{ name, impl, state string }{
		{"impl=warden-serve/state=new", "warden-serve", "new"},
		{"impl=warden-serve/state=used", "warden-serve", "used"},
		{"impl=gosdk", "gosdk", ""},
	}
	if *realBase != "" {
		cases = append(cases, struct{ name, impl, state string }{"impl=warden-baseline/state=used", "warden-baseline", "used"})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			bin := bins
			if c.impl == "warden-baseline" {
				bin = *realBase
			}
			used := b.TempDir()
			if c.state == "used" { // a first start makes the keys and the database
				s := startWarden(b, bin, used, false)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				err := s.firstAnswer(ctx, used)
				cancel()
				stop(s.cmd)
				if err != nil {
					b.Fatal(err)
				}
			}
			var cpu, wall time.Duration
			for range b.N {
				var s *server
				state := ""
				switch c.state {
				case "new":
					state = b.TempDir()
				case "used":
					state = used
				}
				t0 := time.Now()
				if c.impl == "gosdk" {
					s = startGoSDK(b, bins, false)
				} else {
					s = startWarden(b, bin, state, false)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				err := s.firstAnswer(ctx, state)
				cancel()
				took := time.Since(t0)
				spent, cerr := loadtest.ThreadsCPU(s.cmd.Process.Pid)
				stop(s.cmd)
				if err != nil {
					b.Fatal(err)
				}
				if cerr != nil {
					b.Fatal(cerr)
				}
				cpu += spent
				wall += took
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "ns/op")
			b.ReportMetric(float64(wall.Microseconds())/1000/float64(b.N), "wall-ms/op")
		})
	}
}
