package toolset

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/viewstore"
)

// withPrincipal stands in for the authentication in front of the
// endpoint: the principal named by the test header, none without it.
func withPrincipal(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("X-Test-Who") {
		case "alice":
			r = r.WithContext(auth.WithPrincipal(r.Context(), alice))
		case "carol":
			r = r.WithContext(auth.WithPrincipal(r.Context(), carol))
		case "bob":
			r = r.WithContext(auth.WithPrincipal(r.Context(), bob))
		}
		h.ServeHTTP(w, r)
	})
}

type upload struct {
	status int
	header http.Header
	body   map[string]any
}

func put(t *testing.T, url, who string, body io.Reader, size int64, hdr map[string]string) upload {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, url, body)
	req.ContentLength = size
	if who != "" {
		req.Header.Set("X-Test-Who", who)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	u := upload{status: resp.StatusCode, header: resp.Header}
	_ = json.NewDecoder(resp.Body).Decode(&u.body)
	return u
}

func (u upload) code() string {
	e, _ := u.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// chunked hides a body's length, as a streamed upload does.
type chunked struct{ io.Reader }

func TestUploadEndpoint(t *testing.T) {
	b := newViews(t, BinaryOptions{MaxFileSize: 1024, UploadQuota: 1500})
	hs := httptest.NewServer(withPrincipal(b.UploadHandler()))
	defer hs.Close()
	url := hs.URL + UploadPath
	file := append([]byte{0x1f, 0x20, 0x03, 0xd5}, bytes.Repeat([]byte{0xc0, 0x03, 0x5f, 0xd6}, 100)...)
	sum := sha256.Sum256(file)

	if u := put(t, url, "", bytes.NewReader(file), int64(len(file)), nil); u.status != http.StatusUnauthorized {
		t.Errorf("no principal: %d %v", u.status, u.body)
	}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("X-Test-Who", "alice")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "PUT" {
		t.Errorf("GET: %v %v", resp, err)
	}
	if u := put(t, url, "alice", bytes.NewReader(file), int64(len(file)), map[string]string{"Origin": "https://evil.example"}); u.status != http.StatusForbidden {
		t.Errorf("from a browser: %d", u.status)
	}
	big := bytes.Repeat([]byte{1}, 1025)
	if u := put(t, url, "alice", bytes.NewReader(big), 1025, nil); u.status != http.StatusRequestEntityTooLarge || u.code() != "file_too_large" {
		t.Errorf("declared too large: %d %v", u.status, u.body)
	}
	if u := put(t, url, "alice", chunked{bytes.NewReader(big)}, -1, nil); u.status != http.StatusRequestEntityTooLarge {
		t.Errorf("streamed too large: %d %v", u.status, u.body)
	}
	if u := put(t, url, "alice", chunked{strings.NewReader("")}, -1, nil); u.status != http.StatusBadRequest || u.code() != "empty_upload" {
		t.Errorf("empty: %d %v", u.status, u.body)
	}
	u := put(t, url, "alice", chunked{bytes.NewReader(file)}, -1, nil)
	if u.status != http.StatusCreated || u.body["blob"] != "sha256:"+hex.EncodeToString(sum[:]) || u.body["size"].(float64) != float64(len(file)) {
		t.Fatalf("upload: %d %v", u.status, u.body)
	}
	ref := u.body["blob"].(string)
	// 404 + 404 bytes of 1500 used; 1024 more do not fit.
	put(t, url, "alice", bytes.NewReader(file), int64(len(file)), nil)
	full := bytes.Repeat([]byte{2}, 1024)
	q := put(t, url, "alice", bytes.NewReader(full), 1024, nil)
	if q.status != http.StatusTooManyRequests || q.code() != CodeUploadQuota || q.header.Get("Retry-After") == "" {
		t.Errorf("over quota: %d %v", q.status, q.body)
	}
	if q := put(t, url, "alice", chunked{bytes.NewReader(full)}, -1, nil); q.status != http.StatusTooManyRequests {
		t.Errorf("over quota, streamed: %d %v", q.status, q.body)
	}
	// Carol's allowance is her own.
	if u := put(t, url, "carol", bytes.NewReader(full), 1024, nil); u.status != http.StatusCreated {
		t.Errorf("carol: %d %v", u.status, u.body)
	}
	// The reference opens for alice's tenant, not for carol's.
	s := newServer(t, b)
	open := s.must(as(alice), "bininspect_open", `{"blob":"`+ref+`","format":"raw","arch":"arm64"}`)
	if open.str("sha256") != hex.EncodeToString(sum[:]) || open.str("blob") != ref {
		t.Errorf("open by reference: %s", open.raw)
	}
	if r := s.call(as(carol), "bininspect_open", `{"blob":"`+ref+`","format":"raw","arch":"arm64"}`); r.code != CodeBlobNotFound {
		t.Errorf("carol by reference: %s", r.raw)
	}
	// data_base64 counts against the same allowance.
	s.must(as(alice), "bininspect_open", `{"data_base64":"`+rawARM(9)+`","format":"raw","arch":"arm64"}`)
	used, _ := b.store.ChargeUpload(context.Background(), callerOf(alice).credential, viewstore.Day(b.now()), 0, 1<<40)
	if used != 2*int64(len(file))+21 {
		t.Errorf("alice used %d", used)
	}
	big64 := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{3}, 700))
	if r := s.call(as(alice), "bininspect_open", `{"data_base64":"`+big64+`","format":"raw","arch":"arm64"}`); r.code != CodeUploadQuota {
		t.Errorf("data_base64 over the allowance: %s", r.raw)
	}
}

// TestUploadQuotaPerTenant: the daily allowance is kept under the issuer,
// the tenant and the credential together, as every other limit is: the
// same subject signed in to another tenant has an allowance of its own.
func TestUploadQuotaPerTenant(t *testing.T) {
	b := newViews(t, BinaryOptions{MaxFileSize: 1024, UploadQuota: 1024})
	s := newServer(t, b)
	acme := auth.Principal{Issuer: "https://issuer.example", Tenant: "acme", Subject: "dana"}
	globex := auth.Principal{Issuer: "https://issuer.example", Tenant: "globex", Subject: "dana"}
	full := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 1000))
	s.must(as(acme), "bininspect_open", `{"data_base64":"`+full+`","format":"raw","arch":"arm64"}`)
	if r := s.call(as(acme), "bininspect_open", `{"data_base64":"`+full+`","format":"raw","arch":"arm64","name":"again"}`); r.code != CodeUploadQuota {
		t.Fatalf("acme's allowance is spent, yet: %s", r.raw)
	}
	if r := s.call(as(globex), "bininspect_open", `{"data_base64":"`+full+`","format":"raw","arch":"arm64"}`); r.code != "" {
		t.Errorf("dana in another tenant was charged acme's uploads: %s", r.raw)
	}
}

// stalledUpload opens a connection and sends an upload whose body never
// arrives in full: its headers announce 1000 bytes, 10 are sent.
func stalledUpload(t *testing.T, addr, who string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "PUT %s HTTP/1.1\r\nHost: %s\r\nX-Test-Who: %s\r\nContent-Length: 1000\r\n\r\n0123456789", UploadPath, addr, who)
	return c
}

// uploadStatus reads the status and error code answered on c, or 0 when
// none comes within wait.
func uploadStatus(c net.Conn, wait time.Duration) (int, string) {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	u := upload{status: resp.StatusCode}
	_ = json.NewDecoder(resp.Body).Decode(&u.body)
	return u.status, u.code()
}

// TestUploadsSharedByCallers: a caller's stalled uploads take only its
// share of the server's places; the other callers are served.
func TestUploadsSharedByCallers(t *testing.T) {
	b := newViews(t, BinaryOptions{MaxFileSize: 4096, MaxUploads: 4})
	hs := httptest.NewServer(withPrincipal(b.UploadHandler()))
	t.Cleanup(hs.Close)
	addr := hs.Listener.Addr().String()
	// Four stalled uploads of alice's: one holds her share while its
	// body stalls, the other three are refused at once.
	statuses := make(chan int, 4)
	for range 4 {
		c := stalledUpload(t, addr, "alice")
		go func() { s, _ := uploadStatus(c, 30*time.Second); statuses <- s }()
	}
	for range 3 {
		if got := <-statuses; got != http.StatusServiceUnavailable {
			t.Fatalf("an upload beyond alice's share: %d, want 503", got)
		}
	}
	// bob (her tenant) and carol are served meanwhile.
	for _, who := range []string{"bob", "carol"} {
		if u := put(t, hs.URL+UploadPath, who, strings.NewReader(who+"'s file"), -1, nil); u.status != http.StatusCreated {
			t.Errorf("%s locked out by alice's stalled uploads: %d %v", who, u.status, u.body)
		}
	}
}

// TestUploadMinimumRate: a body that stops arriving, or trickles in below
// the minimum rate, is answered 408 upload_too_slow once its grace and
// its bytes' allowance have passed, and gives its place back; a slow body
// that keeps the rate is received.
func TestUploadMinimumRate(t *testing.T) {
	b := newViews(t, BinaryOptions{MaxFileSize: 1 << 20, MaxUploads: 1, UploadGrace: 300 * time.Millisecond, UploadMinRate: 1000})
	hs := httptest.NewServer(withPrincipal(b.UploadHandler()))
	t.Cleanup(hs.Close)
	addr := hs.Listener.Addr().String()

	c := stalledUpload(t, addr, "alice")
	if status, code := uploadStatus(c, 20*time.Second); status != http.StatusRequestTimeout || code != CodeUploadTooSlow {
		t.Fatalf("stalled upload: %d %q, want 408 %s", status, code, CodeUploadTooSlow)
	}
	// 100 bytes a second against a minimum of 1000.
	trickle := stalledUpload(t, addr, "carol")
	go func() {
		for range 40 {
			time.Sleep(100 * time.Millisecond)
			if _, err := trickle.Write([]byte("x")); err != nil {
				return
			}
		}
	}()
	if status, code := uploadStatus(trickle, 20*time.Second); status != http.StatusRequestTimeout || code != CodeUploadTooSlow {
		t.Fatalf("trickled upload: %d %q, want 408 %s", status, code, CodeUploadTooSlow)
	}
	// 4000 bytes a second, for a second and a half: past the grace, and
	// above the rate.
	pr, pw := io.Pipe()
	go func() {
		for range 30 {
			time.Sleep(50 * time.Millisecond)
			if _, err := pw.Write(bytes.Repeat([]byte{9}, 200)); err != nil {
				return
			}
		}
		pw.Close()
	}()
	if u := put(t, hs.URL+UploadPath, "alice", pr, 6000, nil); u.status != http.StatusCreated {
		t.Errorf("a slow upload above the minimum rate: %d %v", u.status, u.body)
	}
}
