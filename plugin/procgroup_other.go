//go:build !unix

package plugin

import "os/exec"

// ownGroup does nothing here: Python plugins are refused at load on
// this system, so no child is ever started.
func ownGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
