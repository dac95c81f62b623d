//go:build unix && !linux

package isolate

// maxrssUnit: the BSDs and macOS report ru_maxrss in bytes.
const maxrssUnit = 1
