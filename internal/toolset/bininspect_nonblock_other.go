//go:build !unix

package toolset

// openNonblock is not needed where opening a file never waits.
const openNonblock = 0
