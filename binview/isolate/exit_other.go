//go:build !unix

package isolate

import (
	"os"
	"os/exec"
	"time"
)

func signaled(*exec.ExitError) (os.Signal, bool) { return nil, false }

func cpuKill(os.Signal, time.Duration, time.Duration) bool { return false }

func maxRSS(*os.ProcessState) int64 { return 0 }
