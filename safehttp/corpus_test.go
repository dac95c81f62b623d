package safehttp

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

type corpusRow struct {
	id    string
	want  Code // "" = validation passes
	input string
	dns   map[string]string // host -> script ("a,b|c", "-", NX, BLOCK)
}

func (r corpusRow) preDNS() bool { return len(r.dns) == 0 }

// loadCorpus reads testdata/ssrf_corpus.txt and adds the rows whose inputs
// are too long to write out.
func loadCorpus(t testing.TB) []corpusRow {
	t.Helper()
	f, err := os.Open("testdata/ssrf_corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []corpusRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.FieldsFunc(line, func(r rune) bool { return r == '\t' })
		if len(fields) < 3 || len(fields) > 4 {
			t.Fatalf("corpus line %d: want 3 or 4 tab-separated fields: %q", n, line)
		}
		in, err := strconv.Unquote(fields[2])
		if err != nil {
			t.Fatalf("corpus line %d: input: %v", n, err)
		}
		row := corpusRow{id: fields[0], input: in}
		if fields[1] != "ok" {
			row.want = Code(fields[1])
			if _, known := publicMessages[row.want]; !known {
				t.Fatalf("corpus line %d: unknown code %q", n, fields[1])
			}
		}
		if len(fields) == 4 {
			row.dns = map[string]string{}
			for _, kv := range strings.Fields(fields[3]) {
				host, script, ok := strings.Cut(kv, "=")
				if !ok {
					t.Fatalf("corpus line %d: bad dns script %q", n, kv)
				}
				row.dns[host] = script
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	label63 := strings.Repeat("a", 63)
	rows = append(rows,
		corpusRow{id: "A01", want: CodeURLTooLong, input: "https://example.com/" + strings.Repeat("a", 3000)},
		corpusRow{id: "A01b", want: CodeURLTooLong, input: "http://127.0.0.1/" + strings.Repeat("a", MaxURLLength)},
		corpusRow{id: "A01c", want: "", input: "https://example.com/" + strings.Repeat("a", MaxURLLength-len("https://example.com/")),
			dns: map[string]string{"example.com": "93.184.215.14"}},
		// The canonical form may outgrow the input: each raw byte outside
		// ASCII in the path becomes %XX, an IDN host becomes punycode.
		corpusRow{id: "A01d", want: CodeURLTooLong, input: "https://example.com/" + strings.Repeat("\x83", 700)},
		corpusRow{id: "A01e", want: CodeURLTooLong, input: "https://b\u00fccher.de/" + strings.Repeat("a", MaxURLLength-len("https://b\u00fccher.de/"))},
		corpusRow{id: "A01f", want: "", input: "https://b\u00fccher.de/" + strings.Repeat("a", MaxURLLength-len("https://xn--bcher-kva.de/")),
			dns: map[string]string{"xn--bcher-kva.de": "93.184.215.14"}},
		// The raw cap counts the fragment, which canonicalisation drops.
		corpusRow{id: "A01g", want: CodeURLTooLong, input: "https://example.com/#" + strings.Repeat("f", MaxURLLength)},
		corpusRow{id: "A02", want: CodeInvalidTarget, input: "https://" + strings.Repeat(label63+".", 4) + "com/"},
		corpusRow{id: "A03", want: CodeInvalidTarget, input: "https://" + label63 + "a.com/"},
		corpusRow{id: "A03b", want: "", input: "https://" + label63 + ".com/",
			dns: map[string]string{label63 + ".com": "93.184.215.14"}},
	)
	return rows
}

func (r corpusRow) resolver(t *testing.T) *fakeResolver {
	f := newFakeResolver()
	if r.preDNS() {
		f.forbid = t
	}
	for host, script := range r.dns {
		switch script {
		case "NX":
			f.errs[host] = errNXDomain
		case "BLOCK":
			f.block[host] = true
		default:
			for _, ans := range strings.Split(script, "|") {
				if ans == "-" {
					ans = ""
				}
				f.set(host, ans)
			}
		}
	}
	return f
}

func TestCorpusSize(t *testing.T) {
	if n := len(loadCorpus(t)); n < 150 {
		t.Errorf("corpus has %d rows, want at least 150", n)
	}
	seen := map[string]bool{}
	for _, r := range loadCorpus(t) {
		if seen[r.id] {
			t.Errorf("duplicate corpus id %s", r.id)
		}
		seen[r.id] = true
	}
}

// TestCorpus runs every row through Validate with a scripted resolver, then
// through Get with a dial recorder: no blocked row may lead to a connect.
func TestCorpus(t *testing.T) {
	for _, row := range loadCorpus(t) {
		t.Run(row.id, func(t *testing.T) {
			res := row.resolver(t)
			c, _ := newTestClient(&Options{Resolver: res, DNSTimeout: 50 * time.Millisecond})
			tgt, err := c.Validate(context.Background(), row.input)
			if got := ErrorCode(err); got != row.want {
				t.Fatalf("Validate(%q) = %v; want code %q", row.input, err, row.want)
			}
			if err != nil {
				checkPublicError(t, err)
				// The full fetch path, with a fresh resolver script, must
				// refuse the same way without a single connect.
				c, dials := newTestClient(&Options{Resolver: row.resolver(t), DNSTimeout: 50 * time.Millisecond})
				_, gerr := c.Get(context.Background(), row.input, nil)
				if got := ErrorCode(gerr); got != row.want {
					t.Errorf("Get(%q) = %v; want code %q", row.input, gerr, row.want)
				}
				if d := dials.list(); len(d) != 0 {
					t.Errorf("blocked input led to dials: %v", d)
				}
				return
			}
			checkTarget(t, tgt)
			for host := range row.dns {
				if n := res.count(host); n != 1 {
					t.Errorf("%d lookups of %s, want exactly 1", n, host)
				}
			}
		})
	}
}

// checkPublicError: the public text is code + fixed message, nothing else.
func checkPublicError(t *testing.T, err error) {
	t.Helper()
	e, ok := AsError(err)
	if !ok {
		t.Fatalf("error %v is not this package's", err)
	}
	if want := e.Code + ": " + publicMessages[Code(e.Code)]; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	switch Code(e.Code) {
	case CodeBlockedIP, CodeBlockedHostname:
		var b *BlockedError
		if !errors.As(err, &b) || !b.Reason.Blocked() {
			t.Errorf("%s without a BlockedError cause: %#v", e.Code, e.Cause)
		}
	}
}

// checkTarget asserts the invariants of an accepted target.
func checkTarget(t *testing.T, tgt *Target) {
	t.Helper()
	if tgt.Port != 80 && tgt.Port != 443 {
		t.Errorf("port %d accepted", tgt.Port)
	}
	if tgt.URL.User != nil || tgt.URL.Fragment != "" {
		t.Errorf("URL %v keeps user-info or fragment", tgt.URL)
	}
	if tgt.URL.Scheme != "http" && tgt.URL.Scheme != "https" {
		t.Errorf("scheme %q accepted", tgt.URL.Scheme)
	}
	for _, r := range tgt.Host {
		if r > 0x7e || ('A' <= r && r <= 'Z') {
			t.Errorf("host %q is not lowercase ASCII", tgt.Host)
			break
		}
	}
	if strings.HasSuffix(tgt.Host, ".") || tgt.Host == "" {
		t.Errorf("host %q not canonical", tgt.Host)
	}
	if len(tgt.Addrs) == 0 || len(tgt.Addrs) != len(tgt.pins) {
		t.Errorf("pins %v / %v", tgt.Addrs, tgt.pins)
	}
	for _, a := range tgt.pins {
		if r := Classify(a); r.Blocked() {
			t.Errorf("pinned %v is %s", a, r)
		}
	}
	// Re-validating the canonical URL gives the same host and port.
	if u := tgt.URL.String(); len(u) > MaxURLLength {
		t.Errorf("canonical URL grew past the cap: %d", len(u))
	}
}

// guardResolver fails the test if called: the system resolvers must never
// see an input that validation refuses before DNS.
type guardResolver struct {
	t *testing.T
	r *net.Resolver
}

func (g guardResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	g.t.Errorf("system resolver called for %q", host)
	return nil, errNXDomain
}

// TestCorpusSystemResolvers runs the rows refused before DNS with both
// net.Resolver configurations (pure Go and cgo/libc). The cgo resolver
// turns "2130706433" or "0x7f.1" into 127.0.0.1 where the Go one says "no
// such host"; the validator must decode such hosts itself and give the same
// code either way, without consulting either resolver.
func TestCorpusSystemResolvers(t *testing.T) {
	for _, preferGo := range []bool{true, false} {
		name := "cgo"
		if preferGo {
			name = "go"
		}
		t.Run(name, func(t *testing.T) {
			c, dials := newTestClient(&Options{Resolver: guardResolver{t, &net.Resolver{PreferGo: preferGo}}})
			for _, row := range loadCorpus(t) {
				if !row.preDNS() || row.want == "" {
					continue
				}
				_, err := c.Validate(context.Background(), row.input)
				if got := ErrorCode(err); got != row.want {
					t.Errorf("%s: Validate(%q) = %v; want %q", row.id, row.input, err, row.want)
				}
			}
			if d := dials.list(); len(d) != 0 {
				t.Errorf("dials: %v", d)
			}
		})
	}
}

// TestCorpusDefaultResolver runs the pre-DNS rows with the production
// default (net.DefaultResolver). TestCorpusUnderNetdns re-runs it in
// subprocesses with GODEBUG=netdns=go and netdns=cgo.
func TestCorpusDefaultResolver(t *testing.T) {
	// Show what the resolver in force makes of a numeric host; logged, since
	// it depends on the build and the machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", "2130706433")
	t.Logf("GODEBUG=%q: net.DefaultResolver(2130706433) = %v, %v", os.Getenv("GODEBUG"), addrs, err)

	c, dials := newTestClient(nil)
	for _, row := range loadCorpus(t) {
		if !row.preDNS() || row.want == "" {
			continue
		}
		_, err := c.Validate(context.Background(), row.input)
		if got := ErrorCode(err); got != row.want {
			t.Errorf("%s: Validate(%q) = %v; want %q", row.id, row.input, err, row.want)
		}
	}
	if d := dials.list(); len(d) != 0 {
		t.Errorf("dials: %v", d)
	}
}

func TestCorpusUnderNetdns(t *testing.T) {
	if os.Getenv("SAFEHTTP_CHILD") != "" {
		t.Skip("in child")
	}
	if testing.Short() {
		t.Skip("spawns subprocesses")
	}
	for _, mode := range []string{"go", "cgo"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCorpusDefaultResolver$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "GODEBUG=netdns="+mode, "SAFEHTTP_CHILD=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("netdns=%s: %v\n%s", mode, err, out)
			}
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, "net.DefaultResolver(") {
					t.Log(strings.TrimSpace(line))
				}
			}
		})
	}
}

// loopbackResolver answers every name with the loopback addresses, so that
// any input the validator wrongly let through would connect to the counting
// listeners.
type loopbackResolver struct{}

func (loopbackResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}, nil
}

// toLoopback rewrites a row's DNS script so that every address the policy
// refuses becomes the loopback address of its family: the row's expected
// code is unchanged (loopback is refused too), but a wrong acceptance would
// now dial a counting listener instead of some real private host.
func toLoopback(script map[string]string) map[string]string {
	out := map[string]string{}
	for host, s := range script {
		var seqs []string
		for _, ans := range strings.Split(s, "|") {
			switch ans {
			case "NX", "BLOCK", "-":
				seqs = append(seqs, ans)
				continue
			}
			var list []string
			for _, a := range strings.Split(ans, ",") {
				addr := netip.MustParseAddr(a).Unmap()
				switch {
				case !Classify(addr).Blocked():
				case addr.Is4():
					addr = netip.MustParseAddr("127.0.0.1")
				default:
					addr = netip.MustParseAddr("::1")
				}
				list = append(list, addr.String())
			}
			seqs = append(seqs, strings.Join(list, ","))
		}
		out[host] = strings.Join(seqs, "|")
	}
	return out
}

// TestCorpusCountingListener is the socket-level proof: counting listeners
// sit on the loopback addresses at the only ports the policy allows (80 and
// 443), every refused row is fetched with its names resolving to them (rows
// without a DNS script get a resolver that answers loopback for everything),
// and the listeners must accept nothing. A positive control first shows that
// a connection the policy does allow is counted. Binding ports 80 and 443
// needs privileges; without them the test is skipped, and TestCorpus's dial
// recorder (which sees every connect the control hook lets through) remains
// the proof.
func TestCorpusCountingListener(t *testing.T) {
	var listeners []*countingListener
	for _, addr := range []string{"127.0.0.1:80", "127.0.0.1:443", "[::1]:80", "[::1]:443"} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			if strings.HasPrefix(addr, "127.") {
				t.Skipf("cannot listen on %s (needs privileges or a free port): %v", addr, err)
			}
			t.Logf("no listener on %s: %v", addr, err)
			continue
		}
		listeners = append(listeners, startCounting(t, ln))
	}
	total := func() int64 {
		var n int64
		for _, l := range listeners {
			n += l.accepts.Load()
		}
		return n
	}

	// Positive control: the allowlisted pair is reached and counted. The
	// client may see the connection closed before the listener's goroutine
	// has counted it, so wait for the listener to say so.
	ctl, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:80")}})
	_, _ = ctl.Get(context.Background(), "http://127.0.0.1/", nil)
	select {
	case <-listeners[0].accepted:
	case <-time.After(30 * time.Second):
		t.Fatal("positive control: the listener on 127.0.0.1:80 accepted nothing")
	}
	if total() != 1 {
		t.Fatalf("positive control: listeners counted %d connections, want 1", total())
	}
	for _, l := range listeners {
		l.accepts.Store(0)
	}

	refused := 0
	for _, row := range loadCorpus(t) {
		if row.want == "" {
			continue
		}
		var res Resolver = loopbackResolver{}
		if !row.preDNS() {
			res = corpusRow{dns: toLoopback(row.dns)}.resolver(t)
		}
		c, _ := newTestClient(&Options{Resolver: res, DNSTimeout: 50 * time.Millisecond})
		if _, err := c.Get(context.Background(), row.input, nil); ErrorCode(err) != row.want {
			t.Errorf("%s: Get(%q) = %v; want %s", row.id, row.input, err, row.want)
		}
		if req, err := http.NewRequest(http.MethodGet, row.input, nil); err == nil {
			if resp, err := c.HTTPClient().Do(req); err == nil {
				resp.Body.Close()
				t.Errorf("%s: HTTPClient fetched %q", row.id, row.input)
			}
		}
		refused++
	}
	n := total()
	if n != 0 {
		t.Errorf("listeners accepted %d connections from %d refused rows", n, refused)
	}
	t.Logf("%d refused rows, %d listeners, %d accepts", refused, len(listeners), n)
}
