package hello

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
)

// parseClientHello reads back what Marshal wrote, as a server would.
func parseClientHello(t *testing.T, rec []byte) (version uint16, suites []uint16, comp []byte, exts map[uint16][]byte) {
	t.Helper()
	if rec[0] != 22 || int(binary.BigEndian.Uint16(rec[3:])) != len(rec)-5 {
		t.Fatalf("bad record header % x", rec[:5])
	}
	b := rec[5:]
	if b[0] != 1 || int(b[1])<<16|int(b[2])<<8|int(b[3]) != len(b)-4 {
		t.Fatalf("bad handshake header % x", b[:4])
	}
	b = b[4:]
	version = binary.BigEndian.Uint16(b)
	b = b[34:]
	b = b[1+int(b[0]):]
	n := int(binary.BigEndian.Uint16(b))
	for i := 0; i < n; i += 2 {
		suites = append(suites, binary.BigEndian.Uint16(b[2+i:]))
	}
	b = b[2+n:]
	comp = b[1 : 1+int(b[0])]
	b = b[1+int(b[0]):]
	exts = map[uint16][]byte{}
	if len(b) == 0 {
		return
	}
	b = b[2:]
	for len(b) >= 4 {
		typ, l := binary.BigEndian.Uint16(b), int(binary.BigEndian.Uint16(b[2:]))
		exts[typ] = b[4 : 4+l]
		b = b[4+l:]
	}
	return
}

func TestMarshalWritesWhatItOffers(t *testing.T) {
	h := Hello{Version: TLS12, Suites: []uint16{0x0033, 0xc0a2, FallbackSCSV}, Compression: []byte{1, 0}, ServerName: "example.test"}
	v, suites, comp, exts := parseClientHello(t, h.Marshal())
	if v != TLS12 || len(suites) != 3 || suites[2] != FallbackSCSV || !bytes.Equal(comp, []byte{1, 0}) {
		t.Fatalf("version %#x suites %x compression %v", v, suites, comp)
	}
	if sni := exts[0x0000]; !bytes.Contains(sni, []byte("example.test")) {
		t.Errorf("no SNI: %q", sni)
	}
	if _, ok := exts[0x000d]; !ok {
		t.Error("a TLS 1.2 hello carries signature_algorithms")
	}
	// SSL 3.0: no extensions, and an IP address is never sent as SNI.
	_, _, _, exts = parseClientHello(t, Hello{Version: SSL30, Suites: []uint16{0x002f}, NoExtensions: true}.Marshal())
	if len(exts) != 0 {
		t.Errorf("SSL 3.0 hello has extensions %v", exts)
	}
	_, _, _, exts = parseClientHello(t, Hello{Version: TLS12, Suites: []uint16{0x002f}, ServerName: "127.0.0.1"}.Marshal())
	if _, ok := exts[0]; ok {
		t.Error("an IP address was sent as SNI")
	}
}

// record wraps a handshake message (or an alert) in a record.
func record(typ byte, body []byte) []byte {
	r := []byte{typ, 3, 3}
	r = binary.BigEndian.AppendUint16(r, uint16(len(body)))
	return append(r, body...)
}

func handshake(typ byte, body []byte) []byte {
	return append([]byte{typ, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body...)
}

func serverHello(version, suite uint16, comp byte, reneg bool) []byte {
	b := binary.BigEndian.AppendUint16(nil, version)
	b = append(b, make([]byte, 32)...)
	b = append(b, 0) // session id
	b = binary.BigEndian.AppendUint16(b, suite)
	b = append(b, comp)
	if reneg {
		b = append(b, 0, 5, 0xff, 0x01, 0, 1, 0)
	}
	return handshake(2, b)
}

func TestReadServerHelloAlertAndDHGroup(t *testing.T) {
	// A ServerHello split across two records, then a certificate and a
	// DHE key exchange with a 1024-bit prime.
	sh := serverHello(TLS12, 0x0033, 0, true)
	prime := append([]byte{0x00, 0x80}, bytes.Repeat([]byte{0xff}, 128)...)
	ske := handshake(12, append(prime, 0, 1, 2))
	stream := append(record(22, sh[:10]), record(22, sh[10:])...)
	stream = append(stream, record(22, append(handshake(11, bytes.Repeat([]byte{1}, 3000)), ske...))...)
	a, err := Read(bytes.NewReader(stream), true)
	if err != nil {
		t.Fatal(err)
	}
	if a.Alert || a.Version != TLS12 || a.Suite != 0x0033 || !a.RenegotiationInfo || a.DHBits != 1024 {
		t.Fatalf("%+v", a)
	}
	a, err = Read(bytes.NewReader(record(21, []byte{2, AlertInappropriateFallback})), false)
	if err != nil || !a.Alert || a.AlertDesc != AlertInappropriateFallback {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := Read(bytes.NewReader([]byte("HTTP/1.1 400 Bad Request\r\n\r\n")), false); err != ErrNotTLS {
		t.Errorf("an HTTP answer: %v", err)
	}
	if _, err := Read(bytes.NewReader(record(22, sh[:20])), false); err != io.EOF && err != io.ErrUnexpectedEOF {
		t.Errorf("a cut ServerHello: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(record(22, serverHello(TLS12, 0x0033, 0, true)), true)
	f.Add(record(21, []byte{2, 40}), false)
	f.Fuzz(func(t *testing.T, b []byte, dh bool) {
		_, _ = Read(bytes.NewReader(b), dh) // never panics, never reads past its bound
	})
}
