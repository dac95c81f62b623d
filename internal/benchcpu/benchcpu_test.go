package benchcpu

import (
	"runtime"
	"testing"
)

func TestProcessGrowsWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no CPU time here")
	}
	before := Process()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if Process() <= before || x == 0 {
		t.Errorf("CPU time did not grow over a busy loop: %v -> %v", before, Process())
	}
}
