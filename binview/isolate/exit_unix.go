//go:build unix

package isolate

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// signaled returns the signal that ended the child, if one did.
func signaled(ee *exec.ExitError) (os.Signal, bool) {
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return nil, false
	}
	return ws.Signal(), true
}

// cpuKill reports a death by the CPU limit: SIGXCPU at the soft limit,
// or SIGKILL at the hard one after (about) the limit's CPU time.
func cpuKill(sig os.Signal, used, limit time.Duration) bool {
	return sig == syscall.SIGXCPU || sig == syscall.SIGKILL && used >= time.Duration(cpuSeconds(limit))*time.Second-100*time.Millisecond
}

// maxRSS is the child's peak resident size in bytes.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return int64(ru.Maxrss) * maxrssUnit
}
