//go:build !race

package disasm

const raceEnabled = false
