//go:build race

package secretscan

// raceEnabled trims the heaviest tests under the race detector, which
// slows decoding about tenfold; the full runs happen without it.
const raceEnabled = true
