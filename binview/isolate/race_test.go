//go:build race

package isolate

// raceMemory is what the race detector's shadow memory adds to a child
// (the test binary re-executed) under -race.
const raceMemory = 8 << 30
