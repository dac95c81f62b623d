package webscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

const chromium = "/usr/bin/chromium"

// measureJS runs in the rendered report (a test copy without the CSP that
// forbids scripts) and writes what it measured into the data-measure
// attribute of the framing page's body, which --dump-dom then prints.
const measureJS = `(function () {
  var res = {viewport: innerWidth, pageWidth: document.documentElement.scrollWidth,
    pageHeight: document.documentElement.scrollHeight, keyBreaks: [], headerRows: [], keys: 0};
  var r = document.createRange();
  document.querySelectorAll('code.key').forEach(function (el) {
    res.keys++;
    var top = null, prev = '';
    var walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (var n = walk.nextNode(); n; n = walk.nextNode()) {
      for (var i = 0; i < n.data.length; i++) {
        r.setStart(n, i); r.setEnd(n, i + 1);
        var rect = r.getClientRects()[0];
        if (!rect) continue;
        if (top !== null && rect.top > top + 2 && prev !== '-' && prev !== '_' && prev !== '/') {
          res.keyBreaks.push(el.textContent + ' before "' + n.data.slice(i) + '"');
        }
        top = rect.top; prev = n.data[i];
      }
    }
  });
  document.querySelectorAll('table').forEach(function (t) {
    var tr = t.rows[0];
    if (!tr || !tr.querySelector('th')) return;
    var content = 0;
    Array.prototype.forEach.call(tr.cells, function (c) {
      r.selectNodeContents(c);
      var tops = {};
      Array.prototype.forEach.call(r.getClientRects(), function (x) { tops[Math.round(x.top)] = true; });
      content = Math.max(content, Object.keys(tops).length * parseFloat(getComputedStyle(c).lineHeight));
    });
    res.headerRows.push({text: tr.textContent.trim().slice(0, 40), height: tr.getBoundingClientRect().height, content: content});
  });
  parent.document.body.setAttribute('data-measure', JSON.stringify(res));
})();`

type measurement struct {
	Viewport   int      `json:"viewport"`
	PageWidth  int      `json:"pageWidth"`
	PageHeight int      `json:"pageHeight"`
	Keys       int      `json:"keys"`
	KeyBreaks  []string `json:"keyBreaks"`
	HeaderRows []struct {
		Text    string  `json:"text"`
		Height  float64 `json:"height"`
		Content float64 `json:"content"`
	} `json:"headerRows"`
}

func runChromium(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + filepath.Join(dir, "profile")}
	cmd := exec.CommandContext(t.Context(), chromium, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return stdout.Bytes()
}

// TestWriteHTMLInChromium renders the report in headless Chromium, when it
// is installed, at a desktop and a phone width. It measures the layout
// (no identifier broken inside a word, no page wider than the screen, no
// header row taller than its text) and keeps full-page screenshots for a
// person to look at: set WEBSCAN_SCREENSHOT_DIR to keep them.
func TestWriteHTMLInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("chromium not installed")
	}
	if testing.Short() {
		t.Skip("short mode")
	}
	f := newFixture(t, fixtureOpts{httpH: badHeadersSite(), httpsH: softNotFound(map[string]string{"/.env": envFile, "/": goodPage}, map[string]string{"/": "text/html"}),
		cert: certSpec{names: []string{"example.com"}, notBefore: time.Now().Add(-time.Hour), notAfter: time.Now().Add(20 * 24 * time.Hour)}})
	rep := f.scan(t, "https://example.com/", nil)
	rep.PolicyWarnings = []ReportWarning{{Code: "private_addresses_allowed", Message: "This scan ran with --allow-private: private and loopback addresses were reachable."}}
	var page bytes.Buffer
	if err := WriteHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	shots := os.Getenv("WEBSCAN_SCREENSHOT_DIR")
	if shots == "" {
		shots = dir
	}
	for _, c := range []struct {
		name  string
		width int
	}{{"desktop", 1280}, {"phone", 390}} {
		t.Run(c.name, func(t *testing.T) {
			m := measureReport(t, dir, page.Bytes(), c.width)
			if m.Viewport != c.width {
				t.Fatalf("viewport %d px, want %d", m.Viewport, c.width)
			}
			if m.Keys < 20 {
				t.Errorf("only %d identifiers marked as keys; the template lost its key markup", m.Keys)
			}
			for _, b := range m.KeyBreaks {
				t.Errorf("identifier broken inside a word: %s", b)
			}
			if m.PageWidth > m.Viewport {
				t.Errorf("page is %d px wide on a %d px screen: it scrolls sideways", m.PageWidth, m.Viewport)
			}
			if len(m.HeaderRows) < 4 {
				t.Errorf("measured %d header rows, want the summary, header, TLS and redirect tables", len(m.HeaderRows))
			}
			for _, h := range m.HeaderRows {
				// Padding (6 px above and below) and a border: anything
				// more is a row stretched beyond its text.
				if h.Height > h.Content+16 {
					t.Errorf("header row %q is %.0f px high for %.0f px of text", h.Text, h.Height, h.Content)
				}
			}
			png := filepath.Join(shots, "report-"+c.name+".png")
			height := min(max(m.PageHeight, 800), 16000)
			framed := framePage(page.Bytes(), c.width, height)
			runChromium(t, dir, "--screenshot="+png, fmt.Sprintf("--window-size=%d,%d", max(c.width, 500), height), "file://"+writeFile(t, dir, "report.html", framed))
			b, err := os.ReadFile(png)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) < 10000 || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
				t.Fatalf("screenshot is %d bytes, not a rendered page", len(b))
			}
		})
	}
}

// measureReport renders a copy of page with the measuring script and
// returns what it measured.
func measureReport(t *testing.T, dir string, page []byte, width int) measurement {
	t.Helper()
	s := string(page)
	i := strings.Index(s, `<meta http-equiv="Content-Security-Policy"`)
	if i < 0 {
		t.Fatal("the report has no CSP meta tag")
	}
	j := strings.Index(s[i:], ">")
	s = s[:i] + s[i+j+1:] // the CSP forbids the measuring script
	s = strings.Replace(s, "</body>", "<script>"+measureJS+"</script></body>", 1)
	path := writeFile(t, dir, "measure.html", framePage([]byte(s), width, 900))
	out := runChromium(t, dir, "--dump-dom", fmt.Sprintf("--window-size=%d,900", max(width, 500)), "file://"+path)
	doc, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	var find func(*html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "body" {
			for _, a := range n.Attr {
				if a.Key == "data-measure" {
					raw = a.Val
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if raw == "" {
		t.Fatalf("the measuring script did not run; chromium printed %d bytes", len(out))
	}
	var m measurement
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// framePage puts page in a frame of the given size. Headless Chromium
// will not make a window narrower than 500 px, so a phone's width is
// the frame's; a srcdoc frame shares its parent's origin, which lets the
// measuring script report to the parent.
func framePage(page []byte, width, height int) []byte {
	return fmt.Appendf(nil, `<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0"><iframe style="border:0;display:block;width:%dpx;height:%dpx" srcdoc="%s"></iframe></body></html>`,
		width, height, html.EscapeString(string(page)))
}

func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
