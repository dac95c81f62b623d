// Package deptest holds the test that fails the build when an import
// points the wrong way: engines at the centre know nothing of MCP, the
// protocol knows nothing of the tools it serves, and only the wiring in
// internal/cli sees everything.
package deptest
