package secretscan

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
	// trie
	type node struct {
		next map[uint8]int32
		out  []int32
	}
	nodes := []node{{next: map[uint8]int32{}}}
	a.patLen = make([]int, len(keywords))
	for ki, k := range keywords {
		a.patLen[ki] = len(k)
		if k == "" {
			continue
		}
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := a.class[k[i]]
			n, ok := nodes[s].next[c]
			if !ok {
				n = int32(len(nodes))
				nodes = append(nodes, node{next: map[uint8]int32{}})
				nodes[s].next[c] = n
			}
			s = n
		}
		nodes[s].out = append(nodes[s].out, int32(ki))
	}
	ns := len(nodes)
	a.delta = make([]int32, ns*a.nclass)
	a.out = make([][]int32, ns)
	fail := make([]int32, ns)
	queue := make([]int32, 0, ns)
	for c := 0; c < a.nclass; c++ {
		if n, ok := nodes[0].next[uint8(c)]; ok {
			a.delta[c] = n
			fail[n] = 0
			queue = append(queue, n)
		}
	}
	a.out[0] = nodes[0].out
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		a.out[s] = append(append([]int32(nil), nodes[s].out...), a.out[fail[s]]...)
		for c := 0; c < a.nclass; c++ {
			if n, ok := nodes[s].next[uint8(c)]; ok {
				fail[n] = a.delta[int(fail[s])*a.nclass+c]
				a.delta[int(s)*a.nclass+c] = n
				queue = append(queue, n)
			} else {
				a.delta[int(s)*a.nclass+c] = a.delta[int(fail[s])*a.nclass+c]
			}
		}
	}
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
	nc := int32(a.nclass)
	a.fast = make([]int32, ns*a.nclass)
	a.fastOut = make([][]int32, ns)
	for old := 0; old < ns; old++ {
		nw := perm[old]
		for c := 0; c < a.nclass; c++ {
			a.fast[int(nw)*a.nclass+c] = perm[a.delta[old*a.nclass+c]] * nc
		}
		a.fastOut[nw] = a.out[old]
	}
	a.firstOut = first * nc
	a.delta, a.out = nil, nil
	return a
}

// scan calls fn(keyword, start) for every keyword occurrence, in order of
// the end position. It stops early when fn returns false.
func (a *automaton) scan(text string, fn func(kw int, start int) bool) {
	s := int32(0) // premultiplied state
	n := len(text)
	fast, class, skip := a.fast, &a.class, &a.rootSkip
	nc := int32(a.nclass)
	for i := 0; i < n; i++ {
		if s == 0 {
			for i < n && skip[text[i]] {
				i++
			}
			if i == n {
				return
			}
		}
		s = fast[s+int32(class[text[i]])]
		if s >= a.firstOut {
			for _, kw := range a.fastOut[s/nc] {
				if !fn(int(kw), i+1-a.patLen[kw]) {
					return
				}
			}
		}
	}
}
