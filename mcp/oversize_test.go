package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/tool"
)

// scanAll runs an idScan over msg fed in pieces of size step (all at once
// when step is 0).
func scanAll(msg []byte, step int) *idScan {
	s := &idScan{}
	if step <= 0 {
		s.feed(msg)
		return s
	}
	for i := 0; i < len(msg); i += step {
		s.feed(msg[i:min(i+step, len(msg))])
	}
	return s
}

func TestIDScan(t *testing.T) {
	big := `"` + strings.Repeat(`a\"b\\`, 1000) + `"`
	for _, c := range []struct {
		name, msg string
		id        string // "" means no answerable request id
	}{
		{"id first", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":` + big + `}}`, `7`},
		{"id last, as the TypeScript SDK writes it", `{"method":"tools/call","params":{"arguments":{"text":` + big + `,"id":99}},"jsonrpc":"2.0","id":"req-1"}`, `"req-1"`},
		{"string id with escapes", `{"jsonrpc":"2.0","method":"m","id":"a\"}\\"}`, `"a\"}\\"`},
		{"escaped member name", `{"jsonrpc":"2.0","method":"m","\u0069\u0064":3}`, `3`},
		{"spaces everywhere", " \t{ \"id\" :\n 12 , \"method\" : \"m\" , \"params\" : { } } \r\n", `12`},
		{"negative id", `{"id":-4,"method":"m"}`, `-4`},
		{"nested ids are not the id", `{"method":"m","params":{"id":1,"a":[{"id":2}]}}`, ``},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"x":` + big + `}}`, ``},
		{"a response", `{"jsonrpc":"2.0","id":5,"result":{"x":` + big + `}}`, ``},
		{"a request carrying a result", `{"jsonrpc":"2.0","id":5,"method":"m","result":1}`, ``},
		{"two ids", `{"id":1,"method":"m","id":2}`, ``},
		{"an object id", `{"id":{"a":1},"method":"m"}`, ``},
		{"a fractional id", `{"id":1.5,"method":"m"}`, ``},
		{"a null id", `{"id":null,"method":"m"}`, ``},
		{"an id too long", `{"id":"` + strings.Repeat("x", 200) + `","method":"m"}`, ``},
		{"an id cut short", `{"method":"m","id":"abc`, ``},
		{"a batch", `[{"id":1,"method":"m"}]`, ``},
		{"not JSON", `id: 1`, ``},
		{"a long member name", `{"` + strings.Repeat("i", 100) + `":1,"method":"m","id":8}`, `8`},
	} {
		for _, step := range []int{0, 1, 3, 64} {
			id, ok := scanAll([]byte(c.msg), step).requestID()
			if got := string(id); ok != (c.id != "") || got != c.id {
				t.Errorf("%s (step %d): id %q %v, want %q", c.name, step, got, ok, c.id)
			}
		}
	}
}

// FuzzIDScan: on every message ParseMessage accepts as a request, the
// streaming scan finds the same id, however the bytes are split.
func FuzzIDScan(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), uint8(1))
	f.Add([]byte(`{"method":"x","params":{"a":["}",{"id":3}]},"jsonrpc":"2.0","id":"q\"}"}`), uint8(5))
	f.Fuzz(func(t *testing.T, msg []byte, step uint8) {
		s := scanAll(msg, int(step))
		id, ok := s.requestID()
		m, err := ParseMessage(msg)
		if err != nil || m.Method == "" || m.ID == nil {
			return
		}
		if !ok || !bytes.Equal(id, m.ID) {
			t.Fatalf("request id %s, scanned %q %v", m.ID, id, ok)
		}
	})
}

// oversizeServer serves stdio over in with a small line cap and returns
// what it wrote and logged.
func oversizeServer(t *testing.T, in io.Reader, max int) (out, logged string) {
	t.Helper()
	var o, l bytes.Buffer
	srv := NewServer(tool.NewRegistry(), &Options{Name: "t", Version: "0", Logger: slog.New(slog.NewTextHandler(&l, nil))})
	t.Cleanup(srv.Close)
	if err := srv.ServeStdio(context.Background(), in, &o, &StdioOptions{MaxMessageBytes: max}); err != nil {
		t.Fatal(err)
	}
	return o.String(), l.String()
}

// An oversized request is answered request_too_large with its id, so the
// client's call ends at once; what cannot be answered by id is logged.
func TestStdioOversizeAnswersByID(t *testing.T) {
	pad := strings.Repeat("x", 6<<20)
	type reply struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Code       string `json:"code"`
				LimitBytes int    `json:"limitBytes"`
			} `json:"data"`
		} `json:"error"`
	}
	for _, c := range []struct {
		name, line string
		id         string // the reply's id; "" means no reply
		log        string
	}{
		{"id first", `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"t","arguments":{"text":"` + pad + `"}}}`, "41", ""},
		{"id last", `{"method":"tools/call","params":{"name":"t","arguments":{"text":"` + pad + `"}},"jsonrpc":"2.0","id":"r-2"}`, `"r-2"`, ""},
		{"no readable id", `{"jsonrpc":"2.0","id":{"x":1},"method":"tools/call","params":{"text":"` + pad + `"}}`, "null", "its id could not be read"},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"` + pad + `"}}`, "", "it was a notification"},
		{"a response", `{"jsonrpc":"2.0","id":3,"result":{"text":"` + pad + `"}}`, "", "it was a response to the server"},
	} {
		out, logged := oversizeServer(t, strings.NewReader(c.line+"\n"), 4<<20)
		if c.id == "" {
			if out != "" {
				t.Errorf("%s: answered %.200s", c.name, out)
			}
		} else {
			var r reply
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%s: %v: %.200q", c.name, err, out)
			}
			if string(r.ID) != c.id || r.Error.Code != CodeInvalidRequest || r.Error.Data.Code != "request_too_large" || r.Error.Data.LimitBytes != 4<<20 {
				t.Errorf("%s: %s", c.name, out)
			}
		}
		if c.log == "" && logged != "" || !strings.Contains(logged, c.log) {
			t.Errorf("%s: logged %q, want %q", c.name, logged, c.log)
		}
		if strings.Contains(logged, "xxxx") || strings.Contains(out, "xxxx") {
			t.Errorf("%s: the message's content was echoed", c.name)
		}
	}
}

// lineOf streams one line of n bytes with the id last, without holding it.
type lineOf struct{ n, i int }

func (r *lineOf) Read(p []byte) (int, error) {
	head := `{"jsonrpc":"2.0","method":"tools/call","params":{"text":"`
	tail := `"},"id":5}` + "\n"
	if r.i >= r.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.i < r.n {
		switch {
		case r.i < len(head):
			p[k] = head[r.i]
		case r.i >= r.n-len(tail):
			p[k] = tail[r.i-(r.n-len(tail))]
		default:
			p[k] = 'x'
		}
		k, r.i = k+1, r.i+1
	}
	return k, nil
}

// An oversized line costs no more memory than the cap: 64 MiB through a
// 64 KiB cap allocates a small fraction of it (the scan keeps a few
// bytes; the slack is for the test binary's other goroutines), and is
// still answered by id.
func TestStdioOversizeMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, _ := oversizeServer(t, &lineOf{n: 64 << 20}, 64<<10)
	runtime.ReadMemStats(&after)
	if !strings.Contains(out, `"id":5,`) || !strings.Contains(out, "request_too_large") {
		t.Errorf("reply %.300s", out)
	}
	d := after.TotalAlloc - before.TotalAlloc
	if d > 8<<20 {
		t.Errorf("a 64 MiB line through a 64 KiB cap allocated %d bytes", d)
	}
	t.Logf("a 64 MiB line through a 64 KiB cap: %d bytes allocated", d)
}
