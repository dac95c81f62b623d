//go:build race

package cli

// raceMemory is what the race detector adds to a re-executed child.
const raceMemory = 8 << 30
