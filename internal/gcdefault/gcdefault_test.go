package gcdefault

import (
	"runtime/debug"
	"testing"
)

func TestApply(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	if !Apply() {
		t.Fatal("Apply with no GOGC or GOMEMLIMIT did nothing")
	}
	if got := debug.SetGCPercent(100); got != Percent {
		t.Errorf("GC percent %d, want %d", got, Percent)
	}

	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "200")
			debug.SetGCPercent(100)
			if Apply() {
				t.Errorf("Apply overrode the operator's %s", env)
			}
			if got := debug.SetGCPercent(100); got != 100 {
				t.Errorf("GC percent %d after Apply with %s set, want 100 untouched", got, env)
			}
		})
	}
}
