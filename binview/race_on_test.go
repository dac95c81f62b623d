//go:build race

package binview

// raceEnabled: the race detector multiplies CPU time, so tests that
// measure it skip.
const raceEnabled = true
