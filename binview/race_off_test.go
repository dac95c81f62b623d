//go:build !race

package binview

const raceEnabled = false
