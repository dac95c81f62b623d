package httplimit

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestCallerShares(t *testing.T) {
	var s CallerShares
	for i := range 2 {
		if !s.Take("a", 2) {
			t.Fatalf("take %d: a caller's share refused below its max", i+1)
		}
	}
	if s.Take("a", 2) {
		t.Error("a third request past a share of 2")
	}
	if !s.Take("b", 2) {
		t.Error("another caller refused for a's requests")
	}
	s.Give("a")
	if !s.Take("a", 2) {
		t.Error("a share given back was not free")
	}
	for range 10 {
		if !s.Take("", 1) {
			t.Fatal("the unauthenticated caller is counted")
		}
	}
	s.Give("a")
	s.Give("a")
	s.Give("b")
	if len(s.n) != 0 {
		t.Errorf("shares left after every Give: %v", s.n)
	}
}

func TestLongest(t *testing.T) {
	for _, c := range []struct {
		p    BodyPace
		size int64
		want time.Duration
	}{
		{BodyPace{Timeout: 10 * time.Second}, 1 << 30, 10 * time.Second},
		{BodyPace{Timeout: 10 * time.Second, MinRate: 1 << 10}, 1 << 20, 10*time.Second + 1024*time.Second},
	} {
		if got := c.p.Longest(c.size); got != c.want {
			t.Errorf("%+v, %d bytes: %v, want %v", c.p, c.size, got, c.want)
		}
	}
}

// TestPaceBody: a body that keeps the minimum rate is read past its
// grace; one that falls behind fails with a timeout once its allowance
// has passed.
func TestPaceBody(t *testing.T) {
	got := make(chan error, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := PaceBody(w, r, BodyPace{Timeout: 200 * time.Millisecond, MinRate: 1000})
		n, err := io.Copy(io.Discard, b)
		if err == nil && n != b.Received() {
			err = fmt.Errorf("received %d, counted %d", n, b.Received())
		}
		b.Done()
		got <- err
	}))
	t.Cleanup(ts.Close)
	send := func(chunks int, every time.Duration, chunk int) error {
		c, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", chunks*chunk)
		go func() {
			for range chunks {
				time.Sleep(every)
				if _, err := c.Write(make([]byte, chunk)); err != nil {
					return
				}
			}
		}()
		go http.ReadResponse(bufio.NewReader(c), nil)
		select {
		case err := <-got:
			return err
		case <-time.After(30 * time.Second):
			t.Fatal("the handler never ended")
			return nil
		}
	}
	// 4000 bytes a second for 1.5 s: above the rate, past the grace.
	if err := send(30, 50*time.Millisecond, 200); err != nil {
		t.Errorf("a body above the minimum rate: %v", err)
	}
	// 100 bytes a second.
	if err := send(30, 100*time.Millisecond, 10); !IsBodyTimeout(err) {
		t.Errorf("a body below the minimum rate: %v, want a timeout", err)
	}
}
