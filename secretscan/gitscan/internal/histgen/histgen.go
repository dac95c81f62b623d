// Package histgen generates git repositories with a long history and
// secrets planted in it, for the history scan's tests and benchmarks. The
// repository is written with git fast-import, so thousands of commits take
// a second or two.
package histgen

import (
	"bufio"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
)

// Planted is a secret put into the history.
type Planted struct {
	Kind    string // github, aws, slack, stripe, password
	Value   string // the value whose fingerprint a finding carries
	Commit  int    // 1-based commit that added it
	Removed bool   // a later commit removed it from the tree
	Twice   bool   // a later commit added it again elsewhere
}

// Options sizes a generated history.
type Options struct {
	Commits int   // number of commits (at least 10)
	Secrets int   // number of distinct planted secrets (at most Commits/4)
	Files   int   // number of files the commits edit; zero: 200
	Lines   int   // lines per file; zero: 60
	Seed    int64 // the pseudo-random seed; the same seed gives the same repository
}

const b62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func randStr(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// secret returns a value of kind and the line that holds it.
func secret(r *rand.Rand, kind string) (value, line string) {
	switch kind {
	case "github":
		body := randStr(r, b62, 30)
		n := crc32.ChecksumIEEE([]byte(body))
		tail := make([]byte, 6)
		for i := 5; i >= 0; i-- {
			tail[i] = b62[n%62]
			n /= 62
		}
		v := "ghp_" + body + string(tail)
		return v, "GITHUB_TOKEN=" + v
	case "aws":
		id := "AKIA" + randStr(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
		v := randStr(r, b62+"+/", 40)
		return v, "aws_access_key_id = " + id + "\naws_secret_access_key = " + v
	case "slack":
		v := fmt.Sprintf("xoxb-%d-%d-%s", 1000000000+r.IntN(999999999), 1000000000+r.IntN(999999999), randStr(r, b62, 24))
		return v, `slack_token: "` + v + `"`
	case "stripe":
		v := "sk_live_" + randStr(r, b62, 24)
		return v, `stripe.api_key = "` + v + `"`
	}
	v := randStr(r, b62, 12) + "!" + randStr(r, b62, 5)
	return v, `db_password = "` + v + `"`
}

var kinds = []string{"github", "aws", "slack", "stripe", "password"}

// codeLine is a line of plausible, secret-free source.
func codeLine(r *rand.Rand, i int) string {
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("func handler%d(w http.ResponseWriter, req *http.Request) { // %s", i, randStr(r, "abcdefghij ", 20))
	case 1:
		return fmt.Sprintf("\tcount%d := len(items) * %d", i, r.IntN(1000))
	case 2:
		return fmt.Sprintf("\tlog.Printf(\"processed %%d records in %%s\", n%d, time.Since(start))", i)
	case 3:
		return fmt.Sprintf("  timeout_%d: %ds", i, r.IntN(120))
	case 4:
		return fmt.Sprintf("# %s", randStr(r, "abcdefghijklmnopqrstuvwxyz    ", 50))
	}
	return fmt.Sprintf("\tif err := store.Put(ctx, key%d, value); err != nil { return err }", i)
}

// Generate writes a new repository at dir (which must not hold one) and
// returns what it planted. Commit k (1-based) edits a few lines of one
// file; the secrets are planted at evenly spread commits, some removed
// again later and some added a second time in another file.
func Generate(dir string, o Options) ([]Planted, error) {
	if o.Files == 0 {
		o.Files = 200
	}
	if o.Lines == 0 {
		o.Lines = 60
	}
	if o.Commits < 10 || o.Secrets > o.Commits/4 {
		return nil, fmt.Errorf("histgen: want at least 10 commits and at most a secret per 4 commits")
	}
	r := rand.New(rand.NewPCG(uint64(o.Seed), 7))
	if out, err := exec.Command("git", "init", "-q", "-b", "main", dir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git init: %v: %s", err, out)
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(in, 1<<20)

	files := make([][]string, o.Files)
	for f := range files {
		files[f] = make([]string, o.Lines)
		for i := range files[f] {
			files[f][i] = codeLine(r, i)
		}
	}
	path := func(f int) string { return fmt.Sprintf("src/pkg%02d/file%03d.go", f%20, f) }
	type pending struct {
		file, line int
		p          int // index in planted
	}
	var planted []Planted
	var removals = map[int][]pending{} // commit -> what to remove then
	var repeats = map[int][]int{}      // commit -> planted to add again
	every := o.Commits / max(1, o.Secrets)
	for k := 1; k <= o.Commits; k++ {
		f := r.IntN(o.Files)
		lines := files[f]
		for range 1 + r.IntN(3) {
			lines[r.IntN(len(lines))] = codeLine(r, r.IntN(1000))
		}
		if o.Secrets > 0 && k%every == 0 && len(planted) < o.Secrets {
			kind := kinds[len(planted)%len(kinds)]
			v, line := secret(r, kind)
			at := r.IntN(len(lines))
			lines[at] = line
			p := Planted{Kind: kind, Value: v, Commit: k}
			if len(planted)%3 == 1 && k+2 <= o.Commits {
				p.Removed = true
				removals[k+2] = append(removals[k+2], pending{f, at, len(planted)})
			}
			if len(planted)%4 == 2 && k+3 <= o.Commits {
				p.Twice = true
				repeats[k+3] = append(repeats[k+3], len(planted))
			}
			planted = append(planted, p)
		}
		for _, rm := range removals[k] {
			files[rm.file][rm.line] = codeLine(r, rm.line)
		}
		edited := []int{f}
		for _, rp := range repeats[k] {
			g := (f + 1 + rp) % o.Files
			files[g][r.IntN(len(files[g]))] = "# again\n" + repeatLine(planted[rp])
			edited = append(edited, g)
		}
		for _, rm := range removals[k] {
			edited = append(edited, rm.file)
		}
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\nauthor Dev %d <dev%d@example.org> %d +0000\ncommitter Dev <dev@example.org> %d +0000\n",
			k, k%17, k%17, 1700000000+k*600, 1700000000+k*600)
		msg := fmt.Sprintf("change %d", k)
		fmt.Fprintf(w, "data %d\n%s\n", len(msg), msg)
		if k > 1 {
			fmt.Fprintf(w, "from :%d\n", k-1)
		}
		seen := map[int]bool{}
		for _, g := range edited {
			if seen[g] {
				continue
			}
			seen[g] = true
			body := strings.Join(files[g], "\n") + "\n"
			fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path(g), len(body), body)
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git fast-import: %w", err)
	}
	return planted, nil
}

// repeatLine is how a secret is written when added a second time.
func repeatLine(p Planted) string {
	switch p.Kind {
	case "github":
		return "export GITHUB_TOKEN=" + p.Value
	case "slack":
		return "SLACK_BOT_TOKEN=" + p.Value
	case "stripe":
		return "STRIPE_SECRET_KEY=" + p.Value
	case "aws":
		return "AWS_SECRET_ACCESS_KEY=" + p.Value
	}
	return "DB_PASSWORD=" + p.Value
}
