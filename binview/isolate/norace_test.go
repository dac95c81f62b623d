//go:build !race

package isolate

// raceMemory is 0 without the race detector.
const raceMemory = 0
