// Package hello speaks the first flight of TLS 1.2 and earlier by hand: a
// ClientHello with exactly the versions, cipher suites, compression methods
// and signalling values a probe wants to offer, and a reader of what the
// server answers (its ServerHello, the Diffie-Hellman group of a DHE
// ServerKeyExchange, or an alert). It exists for what crypto/tls will not
// offer: SSL 3.0, suites Go does not implement (DHE, CAMELLIA, export,
// NULL, anonymous), TLS_FALLBACK_SCSV and compression. It never completes
// a handshake and holds no keys.
package hello

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
)

// Protocol versions on the wire.
const (
	SSL30 uint16 = 0x0300
	TLS10 uint16 = 0x0301
	TLS11 uint16 = 0x0302
	TLS12 uint16 = 0x0303
)

// Signalling cipher suite values (RFC 5746, RFC 7507).
const (
	EmptyRenegotiationInfoSCSV uint16 = 0x00ff
	FallbackSCSV               uint16 = 0x5600
)

// Alerts a probe tells apart.
const (
	AlertHandshakeFailure      byte = 40
	AlertProtocolVersion       byte = 70
	AlertInappropriateFallback byte = 86
)

// Hello is one ClientHello.
type Hello struct {
	// Version is client_version: the highest version offered.
	Version uint16
	// Suites are offered in this order.
	Suites []uint16
	// Compression lists the compression methods offered; nil offers only
	// null (0).
	Compression []byte
	// ServerName is sent as SNI unless empty or an IP address.
	ServerName string
	// NoExtensions sends none (an SSL 3.0 ClientHello has none).
	NoExtensions bool
}

// Marshal writes the ClientHello as one handshake record.
func (h Hello) Marshal() []byte {
	var body []byte
	body = binary.BigEndian.AppendUint16(body, h.Version)
	random := make([]byte, 32)
	_, _ = rand.Read(random)
	body = append(body, random...)
	body = append(body, 0) // no session id
	body = binary.BigEndian.AppendUint16(body, uint16(2*len(h.Suites)))
	for _, s := range h.Suites {
		body = binary.BigEndian.AppendUint16(body, s)
	}
	comp := h.Compression
	if len(comp) == 0 {
		comp = []byte{0}
	}
	body = append(body, byte(len(comp)))
	body = append(body, comp...)
	if !h.NoExtensions {
		ext := h.extensions()
		body = binary.BigEndian.AppendUint16(body, uint16(len(ext)))
		body = append(body, ext...)
	}
	msg := []byte{1, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}
	msg = append(msg, body...)
	recVersion := min(h.Version, TLS10) // what servers expect on the first record
	rec := []byte{22, byte(recVersion >> 8), byte(recVersion)}
	rec = binary.BigEndian.AppendUint16(rec, uint16(len(msg)))
	return append(rec, msg...)
}

func (h Hello) extensions() []byte {
	var ext []byte
	add := func(typ uint16, data []byte) {
		ext = binary.BigEndian.AppendUint16(ext, typ)
		ext = binary.BigEndian.AppendUint16(ext, uint16(len(data)))
		ext = append(ext, data...)
	}
	if h.ServerName != "" && net.ParseIP(h.ServerName) == nil && len(h.ServerName) < 256 {
		name := []byte(h.ServerName)
		d := binary.BigEndian.AppendUint16(nil, uint16(len(name)+3))
		d = append(d, 0) // host_name
		d = binary.BigEndian.AppendUint16(d, uint16(len(name)))
		add(0x0000, append(d, name...))
	}
	// supported_groups: x25519, secp256r1, secp384r1, secp521r1, ffdhe2048, ffdhe3072.
	add(0x000a, []byte{0, 12, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x18, 0x00, 0x19, 0x01, 0x00, 0x01, 0x01})
	add(0x000b, []byte{1, 0}) // ec_point_formats: uncompressed
	if h.Version >= TLS12 {
		// signature_algorithms: the RSA, ECDSA and PSS schemes of TLS 1.2.
		algs := []uint16{0x0804, 0x0805, 0x0806, 0x0401, 0x0501, 0x0601, 0x0403, 0x0503, 0x0603, 0x0201, 0x0203}
		d := binary.BigEndian.AppendUint16(nil, uint16(2*len(algs)))
		for _, a := range algs {
			d = binary.BigEndian.AppendUint16(d, a)
		}
		add(0x000d, d)
	}
	return ext
}

// Answer is what the server said to a ClientHello.
type Answer struct {
	// Alert is set when the server refused with an alert (AlertDesc).
	Alert     bool
	AlertDesc byte
	// Version, Suite and Compression are the ServerHello's choice.
	Version     uint16
	Suite       uint16
	Compression byte
	// RenegotiationInfo is true when the ServerHello carried the
	// renegotiation_info extension (RFC 5746).
	RenegotiationInfo bool
	// DHBits is the size of the Diffie-Hellman prime of a DHE
	// ServerKeyExchange, when it was read.
	DHBits int
}

// ErrNotTLS is returned when the answer is not a TLS record.
var ErrNotTLS = errors.New("hello: the answer is not TLS")

// maxAnswer bounds what Read takes from a server: a ServerHello, a
// certificate chain and a key exchange fit in it.
const maxAnswer = 256 << 10

// Read reads the server's answer: an alert, or a ServerHello and, when
// readDH is set and the server goes on with a ServerKeyExchange of a DHE
// suite, the size of its prime. It reads at most 256 KiB.
func Read(r io.Reader, readDH bool) (Answer, error) {
	rd := &recordReader{r: io.LimitReader(r, maxAnswer)}
	var a Answer
	msg, alert, err := rd.handshakeMessage()
	if err != nil {
		return a, err
	}
	if alert != nil {
		a.Alert, a.AlertDesc = true, alert[1]
		return a, nil
	}
	if msg[0] != 2 {
		return a, fmt.Errorf("hello: expected a ServerHello, got handshake type %d", msg[0])
	}
	if err := a.parseServerHello(msg[4:]); err != nil {
		return a, err
	}
	if !readDH {
		return a, nil
	}
	for range 4 { // Certificate, CertificateStatus, ServerKeyExchange
		msg, alert, err := rd.handshakeMessage()
		if err != nil || alert != nil {
			return a, nil // the ServerHello stands; the group is unknown
		}
		switch msg[0] {
		case 12: // server_key_exchange: dh_p first
			body := msg[4:]
			if len(body) >= 2 {
				n := int(binary.BigEndian.Uint16(body))
				if n > 0 && len(body) >= 2+n {
					p := body[2 : 2+n]
					for len(p) > 0 && p[0] == 0 {
						p = p[1:]
					}
					if len(p) > 0 {
						a.DHBits = (len(p)-1)*8 + bitLen(p[0])
					}
				}
			}
			return a, nil
		case 14: // server_hello_done: no key exchange
			return a, nil
		}
	}
	return a, nil
}

func bitLen(b byte) int {
	n := 0
	for ; b != 0; b >>= 1 {
		n++
	}
	return n
}

func (a *Answer) parseServerHello(b []byte) error {
	bad := errors.New("hello: malformed ServerHello")
	if len(b) < 2+32+1 {
		return bad
	}
	a.Version = binary.BigEndian.Uint16(b)
	b = b[34:]
	sid := int(b[0])
	if len(b) < 1+sid+3 {
		return bad
	}
	b = b[1+sid:]
	a.Suite = binary.BigEndian.Uint16(b)
	a.Compression = b[2]
	b = b[3:]
	if len(b) < 2 {
		return nil // no extensions
	}
	n := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	if n > len(b) {
		return bad
	}
	b = b[:n]
	for len(b) >= 4 {
		typ, l := binary.BigEndian.Uint16(b), int(binary.BigEndian.Uint16(b[2:]))
		if 4+l > len(b) {
			return bad
		}
		if typ == 0xff01 {
			a.RenegotiationInfo = true
		}
		b = b[4+l:]
	}
	return nil
}

// recordReader reassembles handshake messages from records.
type recordReader struct {
	r   io.Reader
	buf []byte // handshake bytes not yet consumed
}

// handshakeMessage returns the next whole handshake message (with its
// 4-byte header), or the 2 bytes of an alert.
func (rr *recordReader) handshakeMessage() (msg, alert []byte, err error) {
	for {
		if len(rr.buf) >= 4 {
			n := int(rr.buf[1])<<16 | int(rr.buf[2])<<8 | int(rr.buf[3])
			if n > maxAnswer {
				return nil, nil, errors.New("hello: handshake message too large")
			}
			if len(rr.buf) >= 4+n {
				msg, rr.buf = rr.buf[:4+n], rr.buf[4+n:]
				return msg, nil, nil
			}
		}
		var hdr [5]byte
		if _, err := io.ReadFull(rr.r, hdr[:]); err != nil {
			return nil, nil, err
		}
		typ, n := hdr[0], int(binary.BigEndian.Uint16(hdr[3:]))
		if hdr[1] != 3 || n > 1<<14+2048 {
			return nil, nil, ErrNotTLS
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(rr.r, body); err != nil {
			return nil, nil, err
		}
		switch typ {
		case 21: // alert
			if len(body) < 2 {
				return nil, nil, ErrNotTLS
			}
			return nil, body[:2], nil
		case 22:
			rr.buf = append(rr.buf, body...)
		default:
			return nil, nil, fmt.Errorf("hello: unexpected record type %d", typ)
		}
	}
}
