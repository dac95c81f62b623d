package secretscan

import "sync"

// automaton is a dense-table Aho-Corasick DFA over ASCII-case-folded bytes.
// It finds every occurrence of every keyword in one pass over the text,
// without making a lower-cased copy. Bytes that occur in no keyword share a
// single byte class, which keeps the table small enough to stay in cache.
type automaton struct {
	class    [256]uint8 // byte -> class (case folded)
	nclass   int
	delta    []int32 // state*nclass + class -> next state
	out      [][]int32
	hasOut   []bool
	patLen   []int
	rootSkip [256]bool // byte keeps the root at the root and emits nothing

	// The scan loop runs on a renumbered copy: states that emit are
	// numbered last, so "emits" is one comparison, and each entry holds
	// the next state premultiplied by nclass.
	fast     []int32
	firstOut int32 // premultiplied index of the first emitting state
	fastOut  [][]int32
	maxLen   int // longest keyword
}

func lowerASCII(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// newAutomaton builds the automaton. Keywords are matched ASCII
// case-insensitively; an empty keyword is ignored.
func newAutomaton(keywords []string) *automaton {
	a := &automaton{}
	// byte classes
	var used [256]bool
	for _, k := range keywords {
		for i := 0; i < len(k); i++ {
			used[lowerASCII(k[i])] = true
		}
	}
	next := 1 // class 0 = not in any keyword
	var cls [256]uint8
	for b := 0; b < 256; b++ {
		if used[b] {
			cls[b] = uint8(next)
			next++
		}
	}
	for b := 0; b < 256; b++ {
		a.class[b] = cls[lowerASCII(byte(b))]
	}
	a.nclass = next
	// The trie, dense: row s holds state s's children by class, 0 for
	// none (the root is nobody's child). The rows become the DFA's
	// transitions in place below, so building it allocates little: it
	// runs before a server's first answer.
	nc := a.nclass
	states := 1 // at most one per keyword byte, plus the root
	for _, k := range keywords {
		states += len(k)
	}
	delta := make([]int32, nc, states*nc)
	var outs [][]int32 // keywords ending at each state, before failure links
	outs = append(outs, nil)
	a.patLen = make([]int, len(keywords))
	for ki, k := range keywords {
		a.patLen[ki] = len(k)
		if len(k) > a.maxLen {
			a.maxLen = len(k)
		}
		if k == "" {
			continue
		}
		s := int32(0)
		for i := 0; i < len(k); i++ {
			e := int(s)*nc + int(a.class[k[i]])
			n := delta[e]
			if n == 0 {
				n = int32(len(outs))
				outs = append(outs, nil)
				delta = append(delta, make([]int32, nc)...)
				delta[e] = n
			}
			s = n
		}
		outs[s] = append(outs[s], int32(ki))
	}
	ns := len(outs)
	// Breadth first, each state's row is completed from its failure
	// state's, which is shallower and so already complete.
	a.out = make([][]int32, ns)
	fail := make([]int32, ns)
	queue := make([]int32, 0, ns)
	for c := 0; c < nc; c++ {
		if n := delta[c]; n != 0 {
			queue = append(queue, n) // fail[n] = 0
		}
	}
	a.out[0] = outs[0]
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if f := a.out[fail[s]]; len(f) == 0 {
			a.out[s] = outs[s]
		} else {
			a.out[s] = append(append([]int32(nil), outs[s]...), f...)
		}
		row, frow := delta[int(s)*nc:int(s+1)*nc], delta[int(fail[s])*nc:int(fail[s]+1)*nc]
		for c, n := range row {
			if n != 0 {
				fail[n] = frow[c]
				queue = append(queue, n)
			} else {
				row[c] = frow[c]
			}
		}
	}
	a.delta = delta
	a.hasOut = make([]bool, ns)
	for i := range a.out {
		a.hasOut[i] = len(a.out[i]) > 0
	}
	for b := 0; b < 256; b++ {
		c := a.class[b]
		a.rootSkip[b] = a.delta[c] == 0
	}
	// Renumber: non-emitting states first (root stays 0), emitting last.
	perm := make([]int32, ns) // old -> new
	id := int32(0)
	for i := 0; i < ns; i++ {
		if !a.hasOut[i] {
			perm[i] = id
			id++
		}
	}
	first := id
	for i := 0; i < ns; i++ {
		if a.hasOut[i] {
			perm[i] = id
			id++
		}
	}
	nc32 := int32(nc)
	a.fast = make([]int32, ns*a.nclass)
	a.fastOut = make([][]int32, ns)
	for old := 0; old < ns; old++ {
		nw := perm[old]
		for c := 0; c < a.nclass; c++ {
			a.fast[int(nw)*a.nclass+c] = perm[a.delta[old*a.nclass+c]] * nc32
		}
		a.fastOut[nw] = a.out[old]
	}
	a.firstOut = first * nc32
	a.delta, a.out = nil, nil
	return a
}

// laneMin is the text length from which scan runs four interleaved
// lanes: below it the overlap and the buffering cost more than they save.
// laneBlock bounds the text one round of lanes covers, and with it the
// hits buffered at a time.
const (
	laneMin   = 4096
	laneBlock = 256 << 10
)

// scan calls fn(keyword, start) for every keyword occurrence, in order of
// the end position. It stops early when fn returns false.
//
// Each step of the automaton waits for the previous one (the next state
// is a load indexed by the current state), so one pass runs at the
// latency of a table load per byte. Long texts are therefore cut into
// blocks, and each block into four lanes walked in one loop: four
// independent chains of loads keep the memory pipeline busy. A lane
// starts maxLen-1 bytes before its share, so a keyword that straddles a
// cut is found by the lane where it ends; hits are buffered per lane and
// handed to fn lane by lane, which keeps them in order of their end.
func (a *automaton) scan(text string, fn func(kw int, start int) bool) {
	if len(text) < laneMin || a.maxLen > laneMin/4 {
		// Short texts, or keywords so long that a lane's overlap could
		// reach past a quarter block: one walk.
		a.scanFrom(text, 0, 0, fn)
		return
	}
	lb := lanePool.Get().(*laneBufs)
	defer lanePool.Put(lb)
	for lo := 0; lo < len(text); {
		hi := lo + laneBlock
		if hi > len(text) || len(text)-hi < laneMin {
			hi = len(text) // no short last block
		}
		if !a.scanLanes(text, lo, hi, lb, fn) {
			return
		}
		lo = hi
	}
}

// scanLanes reports, through fn, the keywords that end in text(lo, hi],
// walking four lanes at once; false when fn stopped it.
func (a *automaton) scanLanes(text string, lo, hi int, lb *laneBufs, fn func(kw int, start int) bool) bool {
	ov := a.maxLen - 1
	var begin, share, end [4]int
	for k := 0; k < 4; k++ {
		share[k] = lo + k*(hi-lo)/4
		end[k] = lo + (k+1)*(hi-lo)/4
		begin[k] = share[k] - ov
		if begin[k] < 0 {
			begin[k] = 0
		}
	}
	steps := end[0] - begin[0]
	for k := 1; k < 4; k++ {
		if l := end[k] - begin[k]; l < steps {
			steps = l
		}
	}
	for k := range lb.hits {
		lb.hits[k] = lb.hits[k][:0]
	}
	fast, class := a.fast, &a.class
	first := a.firstOut
	t0, t1, t2, t3 := text[begin[0]:end[0]], text[begin[1]:end[1]], text[begin[2]:end[2]], text[begin[3]:end[3]]
	t0, t1, t2, t3 = t0[:steps], t1[:steps], t2[:steps], t3[:steps]
	var s0, s1, s2, s3 int32
	for j := 0; j < steps; j++ {
		s0 = fast[s0+int32(class[t0[j]])]
		s1 = fast[s1+int32(class[t1[j]])]
		s2 = fast[s2+int32(class[t2[j]])]
		s3 = fast[s3+int32(class[t3[j]])]
		if s0 >= first || s1 >= first || s2 >= first || s3 >= first {
			if s0 >= first {
				lb.hits[0] = append(lb.hits[0], laneHit{s0, int32(j)})
			}
			if s1 >= first {
				lb.hits[1] = append(lb.hits[1], laneHit{s1, int32(j)})
			}
			if s2 >= first {
				lb.hits[2] = append(lb.hits[2], laneHit{s2, int32(j)})
			}
			if s3 >= first {
				lb.hits[3] = append(lb.hits[3], laneHit{s3, int32(j)})
			}
		}
	}
	st := [4]int32{s0, s1, s2, s3}
	nc := int32(a.nclass)
	for k := 0; k < 4; k++ {
		// The lane's buffered hits, then its tail walked directly.
		for _, h := range lb.hits[k] {
			e := begin[k] + int(h.pos) + 1 // where the keyword ends
			if e <= share[k] {
				continue // in the overlap: an earlier lane or block reported it
			}
			for _, kw := range a.fastOut[h.state/nc] {
				if !fn(int(kw), e-a.patLen[kw]) {
					return false
				}
			}
		}
		if !a.scanFrom(text[:end[k]], begin[k]+steps, st[k], fn) {
			return false
		}
	}
	return true
}

type laneHit struct{ state, pos int32 }

type laneBufs struct{ hits [4][]laneHit }

var lanePool = sync.Pool{New: func() any { return new(laneBufs) }}

// scanFrom runs the automaton over text[i:] from premultiplied state s,
// calling fn for each keyword occurrence; false when fn stopped it.
func (a *automaton) scanFrom(text string, i int, s int32, fn func(kw int, start int) bool) bool {
	n := len(text)
	fast, class, skip := a.fast, &a.class, &a.rootSkip
	nc := int32(a.nclass)
	for ; i < n; i++ {
		if s == 0 {
			for i < n && skip[text[i]] {
				i++
			}
			if i == n {
				return true
			}
		}
		s = fast[s+int32(class[text[i]])]
		if s >= a.firstOut {
			for _, kw := range a.fastOut[s/nc] {
				if !fn(int(kw), i+1-a.patLen[kw]) {
					return false
				}
			}
		}
	}
	return true
}
