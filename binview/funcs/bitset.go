package funcs

// bitset is a fixed-size set of small integers: one bit per byte of an
// executable region, where a map would cost about 40 bytes an entry.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// setRange sets [i, j).
func (b bitset) setRange(i, j int) {
	for ; i < j; i++ {
		b.set(i)
	}
}

// nextClear returns the first index ≥ i that is not set, or n.
func (b bitset) nextClear(i, n int) int {
	for i < n {
		w := b[i>>6] >> (uint(i) & 63)
		if w == ^uint64(0)>>(uint(i)&63) {
			i = (i | 63) + 1
			continue
		}
		if b.has(i) {
			i++
			continue
		}
		return i
	}
	return n
}

// nextSet returns the first index ≥ i that is set, or n.
func (b bitset) nextSet(i, n int) int {
	for i < n {
		if b[i>>6]>>(uint(i)&63) == 0 {
			i = (i | 63) + 1
			continue
		}
		if b.has(i) {
			return i
		}
		i++
	}
	return n
}

// addrSet marks addresses in the executable regions, one bitset per
// region.
type addrSet struct {
	m    *memory
	bits map[int]bitset // region index -> bits
}

func newAddrSet(m *memory) *addrSet {
	s := &addrSet{m: m, bits: make(map[int]bitset, len(m.exec))}
	for _, i := range m.exec {
		s.bits[i] = newBitset(len(m.regions[i].Data))
	}
	return s
}

func (s *addrSet) locate(a uint64) (bitset, int, bool) {
	i := s.m.find(a)
	if i < 0 {
		return nil, 0, false
	}
	b, ok := s.bits[i]
	if !ok {
		return nil, 0, false
	}
	return b, int(a - s.m.regions[i].Addr), true
}

func (s *addrSet) add(a uint64) {
	if b, i, ok := s.locate(a); ok {
		b.set(i)
	}
}

func (s *addrSet) addRange(a uint64, n int) {
	if b, i, ok := s.locate(a); ok {
		b.setRange(i, min(i+n, len(b)*64))
	}
}

func (s *addrSet) has(a uint64) bool {
	b, i, ok := s.locate(a)
	return ok && b.has(i)
}
