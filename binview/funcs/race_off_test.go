//go:build !race

package funcs

const raceEnabled = false
