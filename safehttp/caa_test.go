package safehttp

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/dns/dnsmessage"
)

// caaServer is a name server on loopback, over UDP and TCP, answering CAA
// queries from zone; a name in big answers over UDP with the truncation
// bit, so the client must ask again over TCP.
type caaServer struct {
	zone  map[string][]CAA
	cname map[string]string // alias -> target
	fail  map[string]dnsmessage.RCode
	big   map[string]bool
	addr  string
}

func startCAAServer(t *testing.T, s *caaServer) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = pc.LocalAddr().String()
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close(); ln.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if out := s.answer(buf[:n], true); out != nil {
				pc.WriteTo(out, from)
			}
		}
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var n [2]byte
				if _, err := readFull(c, n[:]); err != nil {
					return
				}
				q := make([]byte, binary.BigEndian.Uint16(n[:]))
				if _, err := readFull(c, q); err != nil {
					return
				}
				out := s.answer(q, false)
				c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(out))), out...))
			}()
		}
	}()
	return s.addr
}

func (s *caaServer) answer(q []byte, udp bool) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil {
		return nil
	}
	qs, err := p.AllQuestions()
	if err != nil || len(qs) != 1 {
		return nil
	}
	name := strings.TrimSuffix(strings.ToLower(qs[0].Name.String()), ".")
	rh := dnsmessage.Header{ID: h.ID, Response: true, RecursionAvailable: true}
	if rc, ok := s.fail[name]; ok {
		rh.RCode = rc
	}
	if udp && s.big[name] {
		rh.Truncated = true
	}
	target := name
	if to, ok := s.cname[name]; ok {
		target = to
	}
	if _, ok := s.zone[target]; !ok && rh.RCode == 0 && target == name {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.StartQuestions()
	b.Question(qs[0])
	b.StartAnswers()
	if !rh.Truncated && rh.RCode == 0 {
		if target != name {
			b.CNAMEResource(dnsmessage.ResourceHeader{Name: qs[0].Name, Class: dnsmessage.ClassINET, TTL: 60},
				dnsmessage.CNAMEResource{CNAME: dnsmessage.MustNewName(target + ".")})
		}
		for _, r := range s.zone[target] {
			data := []byte{0, byte(len(r.Tag))}
			if r.Critical {
				data[0] = 0x80
			}
			data = append(append(data, r.Tag...), r.Value...)
			b.UnknownResource(dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName(target + "."), Type: caaType, Class: dnsmessage.ClassINET, TTL: 60},
				dnsmessage.UnknownResource{Type: caaType, Data: data})
		}
	}
	out, _ := b.Finish()
	return out
}

func TestDNSClientLookupCAA(t *testing.T) {
	s := &caaServer{
		zone: map[string][]CAA{
			"example.com":      {{Tag: "issue", Value: "letsencrypt.org"}, {Tag: "iodef", Value: "mailto:caa@example.com"}},
			"big.example.com":  {{Tag: "issue", Value: "pki.goog"}, {Critical: true, Tag: "tbs", Value: "x"}},
			"empty.example":    {},
			"shop.example.net": {{Tag: "issuewild", Value: ";"}},
		},
		cname: map[string]string{"www.example.net": "shop.example.net"},
		fail:  map[string]dnsmessage.RCode{"broken.example": dnsmessage.RCodeServerFailure},
		big:   map[string]bool{"big.example.com": true},
	}
	d := &DNSClient{Servers: []string{startCAAServer(t, s)}, Timeout: 2 * time.Second}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		want []CAA
	}{
		{"example.com", s.zone["example.com"]},
		{"EXAMPLE.com.", s.zone["example.com"]},
		{"big.example.com", s.zone["big.example.com"]},  // truncated over UDP, asked again over TCP
		{"www.example.net", s.zone["shop.example.net"]}, // through a CNAME
		{"empty.example", nil},
		{"nx.example", nil}, // NXDOMAIN: no records, no error
	} {
		got, err := d.LookupCAA(ctx, c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	if _, err := d.LookupCAA(ctx, "broken.example"); err == nil || err.Error() != "dns_server_failure" {
		t.Errorf("SERVFAIL: %v, want dns_server_failure", err)
	}

	// A server that never answers costs the timeout, not forever.
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	silent := &DNSClient{Servers: []string{pc.LocalAddr().String()}, Timeout: 200 * time.Millisecond}
	start := time.Now()
	if _, err := silent.LookupCAA(ctx, "example.com"); err == nil || err.Error() != "dns_timeout" {
		t.Errorf("a silent server: %v, want dns_timeout (a code that names no address)", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("a silent server took %v", el)
	}
}

func TestParseCAA(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want CAA
		ok   bool
	}{
		{append([]byte{0, 5}, "issueca.example"...), CAA{Tag: "issue", Value: "ca.example"}, true},
		{append([]byte{128, 3}, "TBSx"...), CAA{Critical: true, Tag: "tbs", Value: "x"}, true},
		{[]byte{0}, CAA{}, false},
		{[]byte{0, 9, 'a'}, CAA{}, false},              // tag past the end
		{[]byte{0, 0}, CAA{}, false},                   // empty tag
		{append([]byte{0, 2}, "a-v"...), CAA{}, false}, // tag not alphanumeric
	} {
		got, ok := parseCAA(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("%q: %+v %v, want %+v %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

type plainResolver struct{}

func (plainResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, errors.New("unused")
}

func TestClientLookupCAAKeepsToItsResolver(t *testing.T) {
	c := New(&Options{Resolver: plainResolver{}})
	if _, err := c.LookupCAA(context.Background(), "example.com"); !errors.Is(err, ErrCAAUnsupported) {
		t.Errorf("a resolver without CAA: %v, want ErrCAAUnsupported", err)
	}
}
