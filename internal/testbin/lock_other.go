//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package testbin

import "sync"

var locks sync.Map // path → *sync.Mutex

// lock serialises builds within this process only: elsewhere two test
// processes may build the same file at once, each into its own temporary
// directory, and the rename keeps one of them.
func lock(path string) (unlock func(), err error) {
	m, _ := locks.LoadOrStore(path, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock, nil
}
