package binview

import (
	"os/exec"
	"strings"
	"sync"
)

// testGOROOT is the GOROOT of the go command on PATH: the toolchain the
// tests build with (runtime.GOROOT is deprecated).
var testGOROOT = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})
