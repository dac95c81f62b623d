//go:build !race

package cli

const raceMemory = 0
