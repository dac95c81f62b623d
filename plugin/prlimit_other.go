//go:build !linux

package plugin

import "errors"

// limitChild cannot limit a child here, so Python plugins do not run.
func limitChild(pid int, memory, cpuSeconds int64) error {
	return errors.New("Python plugins run on Linux only, where their limits can be set")
}
