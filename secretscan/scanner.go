package secretscan

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/warden-mcp/warden/errcode"
)

// Defaults and bounds.
const (
	// MaxToolChars is the largest text, in Unicode characters, that the
	// keysweep_scan_text tool accepts. The engine itself takes any size;
	// callers enforce their own cap (see ScanReader).
	MaxToolChars = 256_000
	// DefaultMaxDecodeDepth is how many nested encodings are peeled.
	DefaultMaxDecodeDepth = 2
	// DefaultMaxDetections caps the detections of one scan.
	DefaultMaxDetections = 10_000
	// AllowComment on the same line as a secret suppresses it.
	AllowComment = "keysweep:allow"
	// GitleaksAllowComment suppresses like AllowComment, so that a
	// repository moving from gitleaks keeps its allowed lines.
	GitleaksAllowComment = "gitleaks:allow"
	// fingerprintPrefix versions the fingerprint scheme.
	fingerprintPrefix = "ks1_"
)

// Options configures a Scanner. The zero value (or nil) is safe.
type Options struct {
	// FingerprintKey keys the HMAC behind Detection.Fingerprint. Use one
	// secret key per deployment so fingerprints are stable across
	// restarts and useless to anyone without the key. Nil: a random key is
	// drawn for this Scanner, so fingerprints are stable only within it.
	FingerprintKey []byte
	// MaxDecodeDepth bounds how many encodings (base64, URL, JSON
	// escapes, quoted-printable) are peeled. Zero: DefaultMaxDecodeDepth.
	// Negative: no decoding.
	MaxDecodeDepth int
	// MaxDetections caps the detections returned by one scan. Zero:
	// DefaultMaxDetections.
	MaxDetections int
	// MinConfidence drops detections below it. Zero: keep all.
	MinConfidence float64
	// Baseline suppresses detections whose fingerprint it lists. Nil: none.
	Baseline *Baseline
	// IgnoreAllowComments disables the inline "keysweep:allow" (and
	// "gitleaks:allow") comments. Zero: a comment suppresses the
	// detections that start on its line.
	IgnoreAllowComments bool
	// ExplainFilters records in Result.Rejected each candidate that a
	// filter turned down (at most MaxDetections per scan): the filter's
	// name, the rule, the position and the length, never the value. It is
	// for finding out why a value was not reported, and costs time. Zero:
	// nothing is recorded.
	ExplainFilters bool
	// SkipIdentifiers drops the identifier rules: sensitive values that
	// are not credentials (AWS ARNs and account IDs, bucket host names,
	// store domains, usernames, age recipients, i.e. public keys). Zero:
	// they are reported, as severity low and family "identifier", the way
	// Nosey Parker and Titus report them: they map an attacker's way in
	// (which buckets, accounts and stores exist) without opening it.
	// Password hashes (bcrypt, crypt(3), Cisco type 8/9, Kerberos AS-REP)
	// are not identifiers: they allow offline recovery of the password,
	// so they are always reported, as low.
	SkipIdentifiers bool
	// CustomRules are a team's own formats, run beside the built-in rules
	// (see CustomRule). Use Build, which checks them; New panics on a bad
	// one.
	CustomRules []CustomRule
	// DisabledRules are rule ids (built-in or custom) that do not run.
	DisabledRules []string
	// AllowValues suppress the detections whose value matches one of
	// them, counted in Result.Suppressed like an allow comment.
	AllowValues []AllowValue
	// KeepPairParts also reports each part of a credential found as a
	// pair on its own: the key ID of an AWS pair as aws_access_key_id
	// beside the aws_credential_pair. A redactor sets it, since it must
	// remove every span. Zero: the pair is one detection, whose Parts
	// locate both values.
	KeepPairParts bool
}

// Scanner finds credentials in text. It is safe for concurrent use; build
// one at start-up (New compiles all rules) and share it.
type Scanner struct {
	rules    []*compiledRule
	ac       *automaton
	kwUsers  [][]int
	key      []byte
	depth    int
	maxDet   int
	minConf  float64
	baseline *Baseline
	noAllow  bool
	ids      bool
	explain  bool
	glued    bool // see Glued
	parts    bool
	allow    []AllowValue
	pool     sync.Pool
}

// Glued returns a Scanner like s, sharing its rules and fingerprint key,
// that also reports a match of a rule with a checksum or structure check
// (RuleInfo.Validated: ghp_, npm_, xoxb-, AKIA...) where a letter or a
// digit is glued to its end, as in a binary's packed strings
// ("ghp_...UH"), which s rejects as part of a longer word, provided the
// check passes: that makes the match a credential whatever follows it.
// Rules without a check keep the word-boundary filter, so an identifier
// such as "dckr_pat_expiry_days_..." stays silent. It is for a privacy pass,
// which removes what it finds; reports are s's.
func (s *Scanner) Glued() *Scanner {
	g := &Scanner{rules: s.rules, ac: s.ac, kwUsers: s.kwUsers, key: s.key, depth: s.depth, maxDet: s.maxDet,
		minConf: s.minConf, baseline: s.baseline, noAllow: s.noAllow, ids: s.ids, explain: s.explain, parts: s.parts, glued: true,
		allow: s.allow}
	g.pool.New = func() any { return &scratch{} }
	return g
}

var (
	compileOnce sync.Once
	compiled    []*compiledRule
	compiledAC  *automaton
	compiledKW  [][]int
	compileErr  error
)

func builtin() ([]*compiledRule, *automaton, [][]int, error) {
	compileOnce.Do(func() {
		compiled, compileErr = compileRules(allRules())
		if compileErr != nil {
			return
		}
		kws, users := keywordIndex(compiled)
		compiledAC = newAutomaton(kws)
		compiledKW = users
	})
	return compiled, compiledAC, compiledKW, compileErr
}

// New returns a Scanner with the built-in rules. It panics only if a
// built-in rule fails to compile, which the package tests rule out, or if
// opts has custom rules, disabled rules or allowed values that Build would
// refuse: use Build for those.
func New(opts *Options) *Scanner {
	if opts == nil {
		opts = &Options{}
	}
	if len(opts.CustomRules) > 0 || len(opts.DisabledRules) > 0 || len(opts.AllowValues) > 0 {
		s, err := Build(opts)
		if err != nil {
			panic("secretscan: " + err.Error())
		}
		return s
	}
	return newScanner(opts)
}

// newScanner is a Scanner of the built-in rules with opts' settings.
func newScanner(opts *Options) *Scanner {
	rules, ac, users, err := builtin()
	if err != nil {
		panic("secretscan: built-in rules: " + err.Error())
	}
	s := &Scanner{rules: rules, ac: ac, kwUsers: users, depth: opts.MaxDecodeDepth,
		maxDet: opts.MaxDetections, minConf: opts.MinConfidence, baseline: opts.Baseline,
		noAllow: opts.IgnoreAllowComments, ids: !opts.SkipIdentifiers, explain: opts.ExplainFilters,
		parts: opts.KeepPairParts}
	if s.depth == 0 {
		s.depth = DefaultMaxDecodeDepth
	} else if s.depth < 0 {
		s.depth = 0
	}
	if s.maxDet <= 0 {
		s.maxDet = DefaultMaxDetections
	}
	if len(opts.FingerprintKey) > 0 {
		s.key = append([]byte(nil), opts.FingerprintKey...)
	} else {
		s.key = make([]byte, 32)
		_, _ = rand.Read(s.key)
	}
	s.pool.New = func() any { return &scratch{} }
	return s
}

// Fingerprint returns the keyed fingerprint of value, as Detection carries it.
func (s *Scanner) Fingerprint(value string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("keysweep/v1\x00"))
	m.Write([]byte(value))
	return fingerprintPrefix + hex.EncodeToString(m.Sum(nil)[:12])
}

type hit struct {
	rule       int32
	start, end int32
}

type scratch struct {
	hits, sorted []hit
	counts       []int32
	// value is the candidate under the value rules: judgeValue calls the
	// rules through function values, so a candidate on the stack would
	// escape to the heap each time.
	value valueCandidate
}

// candidate is a match before filtering, dedup and positioning.
type candidate struct {
	r          *compiledRule
	start, end int // span reported in the scanned text
	value      string
	conf       float64
	sev        Severity
	chk        check
	enc        string
	evidence   []string
	// idStart and idEnd locate the key ID of a pair rule's match (its
	// "id" group); idEnd is 0 when there is none.
	idStart, idEnd int
}

// Scan finds credentials in text. Output order is deterministic. The only
// errors are cancellation (CodeCanceled).
func (s *Scanner) Scan(ctx context.Context, text string) (Result, error) {
	return s.scanRange(ctx, text, 0, len(text))
}

// scanRange scans text but reports (and counts as suppressed) only the
// detections that start in text[from:to]: the rest of text is context,
// as a window of a stream carries it around the part it reports.
func (s *Scanner) scanRange(ctx context.Context, text string, from, to int) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, errcode.Wrap(CodeCanceled, "scan canceled", err)
	}
	res := Result{TextLength: runeCount(text)}
	st := scanState{explain: s.explain, maxRejections: s.maxDet}
	cands, err := s.find(ctx, &st, text, s.depth)
	if err != nil {
		return Result{}, err
	}
	cands = dedup(cands)
	if !s.parts {
		cands = dropPairedIDs(cands)
	}
	res.Truncated = st.truncated
	res.Detections = make([]Detection, 0, len(cands))
	lt := newLineTracker(text)
	for _, c := range cands {
		if c.start < from || c.start >= to {
			continue
		}
		if c.conf < s.minConf {
			if st.explain {
				st.rejected(c.r, filterMinConfidence, c.start, c.end, c.value, c.enc)
			}
			continue
		}
		var parts []Part
		if c.idEnd > 0 {
			il, ic := lt.at(c.idStart)
			parts = []Part{{Name: "key_id", Line: il, Column: ic, Offset: c.idStart, End: c.idEnd}}
		}
		line, col := lt.at(c.start)
		if parts != nil {
			parts = append(parts, Part{Name: "secret", Line: line, Column: col, Offset: c.start, End: c.end})
		}
		if !s.noAllow && lt.allowed() {
			res.Suppressed++
			continue
		}
		if s.allowed(c.value) {
			res.Suppressed++
			continue
		}
		fp := s.Fingerprint(c.value)
		if s.baseline.match(c.r.rule, c.value, fp) {
			res.Suppressed++
			continue
		}
		if len(res.Detections) >= s.maxDet {
			res.Truncated = true
			break
		}
		res.Detections = append(res.Detections, Detection{
			RuleID: c.r.ID, Type: c.r.Type, Family: c.r.Family, Severity: c.sev,
			Confidence: round2(c.conf), Fingerprint: fp, ValueLength: utf8.RuneCountInString(c.value),
			Line: line, Column: col, Offset: c.start, End: c.end, Encoding: c.enc,
			Evidence: c.evidence, Parts: parts, secret: &secretValue{v: strings.Clone(c.value)}, // no pinning of the text
			strong: c.r.Evidence >= evPrefix,
		})
	}
	if st.explain {
		res.Rejected = st.explained(text)
	}
	return res, nil
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// lineTracker maps increasing byte offsets to 1-based line and column in
// time linear in the text, however many detections share a line.
type lineTracker struct {
	text       string
	pos        int // last offset mapped
	lineStart  int // start of pos's line
	line, col  int // at pos
	allowKnown bool
	allow      bool // pos's line holds AllowComment
}

func newLineTracker(text string) *lineTracker {
	return &lineTracker{text: text, line: 1, col: 1}
}

func (lt *lineTracker) at(off int) (line, col int) {
	if off < lt.pos { // offsets are sorted; restart to be safe
		*lt = lineTracker{text: lt.text, line: 1, col: 1}
	}
	seg := lt.text[lt.pos:off]
	if nl := strings.Count(seg, "\n"); nl > 0 {
		lt.line += nl
		lt.lineStart = lt.pos + strings.LastIndexByte(seg, '\n') + 1
		lt.col = 1 + runeCount(lt.text[lt.lineStart:off])
		lt.allowKnown = false
	} else {
		lt.col += runeCount(seg)
	}
	lt.pos = off
	return lt.line, lt.col
}

// allowed reports whether the current line holds the allow comment,
// reading each line at most once.
func (lt *lineTracker) allowed() bool {
	if !lt.allowKnown {
		end := strings.IndexByte(lt.text[lt.lineStart:], '\n')
		if end < 0 {
			end = len(lt.text) - lt.lineStart
		}
		line := lt.text[lt.lineStart : lt.lineStart+end]
		lt.allow = strings.Contains(line, AllowComment) || strings.Contains(line, GitleaksAllowComment)
		lt.allowKnown = true
	}
	return lt.allow
}

// scanState carries what one Scan call learns along the way.
type scanState struct {
	truncated bool // a bound stopped matching early

	explain       bool        // Options.ExplainFilters
	maxRejections int         // cap on rejections
	rejections    []Rejection // what filters turned down, when explain
}

// find returns all candidates in text, including those in decoded layers.
func (s *Scanner) find(ctx context.Context, st *scanState, text string, depth int) ([]candidate, error) {
	sc := s.pool.Get().(*scratch)
	hits := sc.hits[:0]
	const maxHits = 1 << 20
	s.ac.scan(text, func(kw, start int) bool {
		end := start + s.ac.patLen[kw]
		for _, ri := range s.kwUsers[kw] {
			hits = append(hits, hit{rule: int32(ri), start: int32(start), end: int32(end)})
		}
		if len(hits) >= maxHits {
			st.truncated = true
			return false
		}
		return true
	})
	// Group the hits by rule, keeping text order within a rule (a
	// counting sort: linear in hits plus rules).
	counts := sc.counts[:0]
	counts = append(counts, make([]int32, len(s.rules)+1)...)
	for _, h := range hits {
		counts[h.rule+1]++
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	if cap(sc.sorted) < len(hits) {
		sc.sorted = make([]hit, len(hits))
	}
	sorted := sc.sorted[:len(hits)]
	for _, h := range hits {
		sorted[counts[h.rule]] = h
		counts[h.rule]++
	}
	sc.counts = counts
	hits, sc.sorted = sorted, hits
	var cands []candidate
	for i := 0; i < len(hits); {
		j := i
		for j < len(hits) && hits[j].rule == hits[i].rule {
			j++
		}
		r := s.rules[hits[i].rule]
		if r.Identifier && !s.ids {
			// not requested
		} else if r.Assign != nil {
			cands = s.runAssign(st, r, text, hits[i:j], &sc.value, cands)
		} else {
			cands = s.runPattern(st, r, text, hits[i:j], cands)
		}
		i = j
		if err := ctx.Err(); err != nil {
			sc.hits = hits
			s.pool.Put(sc)
			return nil, errcode.Wrap(CodeCanceled, "scan canceled", err)
		}
	}
	sc.hits = hits
	s.pool.Put(sc)
	if depth > 0 {
		var err error
		cands, err = s.findEncoded(ctx, st, text, depth, cands)
		if err != nil {
			return nil, err
		}
	}
	return cands, nil
}

func (s *Scanner) runPattern(st *scanState, r *compiledRule, text string, hs []hit, cands []candidate) []candidate {
	n := len(text)
	ws, we := -1, -1
	flush := func() {
		if ws < 0 {
			return
		}
		win := text[ws:we]
		for _, m := range r.regexp().FindAllStringSubmatchIndex(win, 64) {
			ss, se := m[2*r.secretIdx], m[2*r.secretIdx+1]
			if ss < 0 || ss == se {
				continue
			}
			if r.userIdx > 0 && m[2*r.userIdx] >= 0 {
				user := win[m[2*r.userIdx]:m[2*r.userIdx+1]]
				v := win[ss:se]
				if v == user || portLike(v) || len(user) > 128 {
					if st.explain {
						st.rejected(r, filterUserInfo, ws+ss, ws+se, v, "")
					}
					continue
				}
			}
			c, filter := s.evaluate(r, text, ws+ss, ws+se, text[ws+m[0]:ws+m[1]])
			if filter != "" {
				if st.explain {
					st.rejected(r, filter, ws+ss, ws+se, win[ss:se], "")
				}
				continue
			}
			if r.idIdx > 0 && m[2*r.idIdx] >= 0 {
				c.idStart, c.idEnd = ws+m[2*r.idIdx], ws+m[2*r.idIdx+1]
			}
			cands = append(cands, c)
		}
	}
	for _, h := range hs {
		if r.Pre != nil && !r.Pre(text, int(h.start), int(h.end)) {
			continue
		}
		if r.Evidence == evKeyword && (!wordStart(text, int(h.start)) || namesNonSecret(text, int(h.start), int(h.end))) {
			continue // "AjentinaSamoa" holds no "nasa"; AUTH0_CLIENT_ID=...: the vendor's name on something else
		}
		a := int(h.start) - r.before
		if a < 0 {
			a = 0
		}
		b := int(h.end) + r.after
		if b > n {
			b = n
		}
		if !r.multiline {
			// Single-line rules: clip the window to the keyword's line.
			if k := strings.LastIndexByte(text[a:h.start], '\n'); k >= 0 {
				a += k + 1
			}
			if k := strings.IndexByte(text[h.end:b], '\n'); k >= 0 {
				b = int(h.end) + k
			}
		}
		if ws >= 0 && a <= we {
			if b > we {
				we = b
			}
			continue
		}
		flush()
		ws, we = a, b
	}
	flush()
	return cands
}

func (s *Scanner) runAssign(st *scanState, r *compiledRule, text string, hs []hit, vc *valueCandidate, cands []candidate) []candidate {
	vc.text = text
	lastName, lastEnd := -1, -1
	for _, h := range hs {
		if int(h.start) < lastEnd {
			continue // another keyword inside the name already handled ("pass" in "password")
		}
		a, ok := extractAssignment(text, int(h.start), int(h.end))
		lastEnd = int(h.end)
		if ok {
			lastEnd = a.nameEnd
		}
		if !ok || a.nameStart == lastName {
			continue
		}
		lastName = a.nameStart
		named, strong := classifyName(text[a.nameStart:a.nameEnd], r.Assign.class)
		if !named {
			if st.explain {
				st.rejected(r, filterName, a.valStart, a.valEnd, text[a.valStart:a.valEnd], "")
			}
			continue
		}
		vc.set(a, r.Assign.class, strong)
		if v, by := judgeValue(vc); v == reject {
			if st.explain {
				st.rejected(r, valueRules[by].name, a.valStart, a.valEnd, vc.v, "")
			}
			continue
		}
		h := vc.entropy()
		conf := 0.45
		ev := []string{"keyword"}
		if strong {
			conf += 0.1
		}
		if h >= 4.0 {
			conf += 0.1
			ev = append(ev, "entropy")
		}
		cands = append(cands, candidate{r: r, start: a.valStart, end: a.valEnd,
			value: text[a.valStart:a.valEnd], conf: conf, sev: r.Severity, evidence: ev})
	}
	*vc = valueCandidate{} // the pool must not keep the text alive
	return cands
}

// evaluate applies the filters and the validator to one pattern match. It
// returns the name of the filter that rejects the match, or "".
func (s *Scanner) evaluate(r *compiledRule, text string, ss, se int, match string) (candidate, string) {
	v := text[ss:se]
	// trail: a letter or digit continues the match, which only Glued
	// takes, and only where the rule's check passes.
	trail := false
	if !r.NoBoundary {
		trail = se < len(text) && isAlnum(text[se]) && isAlnum(v[len(v)-1])
		if ss > 0 && isAlnum(text[ss-1]) && isAlnum(v[0]) || trail && !(s.glued && r.Validate != nil) {
			return candidate{}, filterBoundary
		}
	}
	if knownTestValues[v] {
		return candidate{}, filterKnownTest
	}
	if r.MinLen > 0 && len(v) < r.MinLen || r.MaxLen > 0 && len(v) > r.MaxLen {
		return candidate{}, filterLength
	}
	if !r.KeepPlaceholders && isPlaceholder(v) {
		return candidate{}, filterPlaceholder
	}
	if r.Exclude != nil && r.Exclude(v) {
		return candidate{}, filterExclude
	}
	h := shannon(v)
	if r.MinEntropy > 0 && h < r.MinEntropy {
		return candidate{}, filterEntropy
	}
	c := candidate{r: r, start: ss, end: se, value: v, sev: r.Severity}
	switch r.Evidence {
	case evStructure:
		c.conf = 0.8
		c.evidence = []string{"structure"}
	case evPrefix:
		c.conf = 0.8
		c.evidence = []string{"prefix"}
	case evKeyword:
		c.conf = 0.65
		c.evidence = []string{"keyword"}
	default:
		c.conf = 0.45
		c.evidence = []string{"keyword"}
	}
	if r.Evidence <= evKeyword && h >= 4.0 {
		c.conf += 0.1
		c.evidence = append(c.evidence, "entropy")
	}
	if r.Validate != nil {
		c.chk = r.Validate(v, match)
		switch c.chk {
		case checkValid:
			c.conf = 0.95
			c.evidence = append(c.evidence, "checksum_valid")
		case checkInvalid:
			c.conf -= 0.25
			c.evidence = append(c.evidence, "checksum_invalid")
		}
		if trail && c.chk != checkValid {
			return candidate{}, filterBoundary
		}
	}
	if c.conf < 0.05 {
		c.conf = 0.05
	}
	return c, ""
}

// rank orders rules claiming overlapping spans: structure and checksum
// evidence first, generic last.
func rank(c candidate) int {
	r := int(c.r.Evidence)*100 + c.r.Priority*10 + int(c.conf*9)
	// Quoted-printable and JSON escapes are transport artefacts: the
	// decoded value is what the application sees, so it beats a raw match
	// of the same span ("password=3D..." read literally).
	if strings.HasPrefix(c.enc, "quoted_printable") || strings.HasPrefix(c.enc, "json") {
		r += 5
	}
	// A percent-decoded layer can re-split a URL whose password holds an
	// encoded '@' ("p%40ss@host" reads as "p@ss@host"); the plain match
	// of the same rule parses it as written and points at the value.
	if strings.HasPrefix(c.enc, "url") {
		r--
	}
	return r
}

// dedup sorts candidates by position and drops those whose span overlaps a
// better-ranked candidate (a generic finding inside a specific one, the
// same value found by two rules, a decoded layer repeating a plain find).
func dedup(cs []candidate) []candidate {
	if len(cs) == 0 {
		return cs
	}
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := cs[order[i]], cs[order[j]]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra > rb
		}
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end-a.start != b.end-b.start {
			return a.end-a.start > b.end-b.start
		}
		return a.r.ID < b.r.ID
	})
	type span struct{ s, e int }
	var kept []candidate
	var spans []span // sorted by start
	for _, i := range order {
		c := cs[i]
		k := sort.Search(len(spans), func(k int) bool { return spans[k].s >= c.end })
		overlap := false
		for m := k - 1; m >= 0; m-- {
			if spans[m].e > c.start {
				overlap = true
				break
			}
			if spans[m].s+4096*4 < c.start { // spans are bounded in length
				break
			}
		}
		if overlap {
			continue
		}
		spans = append(spans, span{})
		copy(spans[k+1:], spans[k:])
		spans[k] = span{c.start, c.end}
		kept = append(kept, c)
	}
	sort.Slice(kept, func(i, j int) bool {
		if kept[i].start != kept[j].start {
			return kept[i].start < kept[j].start
		}
		return kept[i].r.ID < kept[j].r.ID
	})
	return kept
}

// runeCount is utf8.RuneCountInString with a fast path over ASCII runs.
func runeCount(s string) int {
	n, i := 0, 0
	for i < len(s) {
		if i+8 <= len(s) && (s[i]|s[i+1]|s[i+2]|s[i+3]|s[i+4]|s[i+5]|s[i+6]|s[i+7])&0x80 == 0 {
			i += 8
			n += 8
			continue
		}
		if s[i] < 0x80 {
			i++
		} else {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
		n++
	}
	return n
}

// dropPairedIDs drops the candidates that lie inside the key ID of a pair
// (an AWS key ID found with its secret): the pair reports both places, so
// the ID alone would be the same credential twice.
func dropPairedIDs(cs []candidate) []candidate {
	var ids [][2]int
	for _, c := range cs {
		if c.idEnd > 0 {
			ids = append(ids, [2]int{c.idStart, c.idEnd})
		}
	}
	if ids == nil {
		return cs
	}
	kept := cs[:0]
	for _, c := range cs {
		inside := false
		for _, id := range ids {
			if c.idEnd == 0 && c.start < id[1] && id[0] < c.end {
				inside = true
				break
			}
		}
		if !inside {
			kept = append(kept, c)
		}
	}
	return kept
}
