package loadtest

import (
	"bytes"
	"errors"
	"math"
	"os"
	"strconv"
	"time"
)

// clockTick is the unit of utime and stime in /proc/<pid>/stat: USER_HZ,
// 100 on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// ProcessCPU returns a function reading the CPU time (user plus system)
// that process pid has used, from /proc/<pid>/stat. It works on Linux
// only; elsewhere the function returns an error.
func ProcessCPU(pid int) func() (time.Duration, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/stat"
	return func() (time.Duration, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, err
		}
		return parseStatCPU(b)
	}
}

// parseStatCPU reads fields 14 (utime) and 15 (stime) of a stat line. The
// command name (field 2) may hold spaces and parentheses, so fields are
// counted from the last ')'.
func parseStatCPU(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("loadtest: malformed stat line")
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, errors.New("loadtest: malformed stat line")
	}
	utime, err1 := strconv.ParseUint(string(f[11]), 10, 63)
	stime, err2 := strconv.ParseUint(string(f[12]), 10, 63)
	if err1 != nil || err2 != nil {
		return 0, errors.New("loadtest: malformed stat line")
	}
	// Ticks beyond what a Duration holds are not a CPU time this process
	// can have run: refuse them rather than wrap negative.
	const maxTicks = uint64(math.MaxInt64 / int64(clockTick))
	if utime > maxTicks || stime > maxTicks-utime {
		return 0, errors.New("loadtest: CPU time out of range")
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// ThreadsCPU returns the CPU time process pid's threads have run so far,
// summed from /proc/<pid>/task/*/schedstat, whose first field is a
// thread's time on a CPU in nanoseconds: precise where ProcessCPU counts
// 10 ms ticks, for spans as short as a start-up. Threads that have
// already exited are not counted; a Go program keeps its threads. Linux
// only.
func ThreadsCPU(pid int) (time.Duration, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			if errors.Is(err, os.ErrNotExist) { // the thread exited meanwhile
				continue
			}
			return 0, err
		}
		d, err := parseSchedstat(b)
		if err != nil {
			return 0, err
		}
		sum += d
	}
	return sum, nil
}

// parseSchedstat reads the first field of a schedstat line: nanoseconds
// on a CPU.
func parseSchedstat(b []byte) (time.Duration, error) {
	f := bytes.Fields(b)
	if len(f) < 1 {
		return 0, errors.New("loadtest: malformed schedstat line")
	}
	ns, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil || ns < 0 {
		return 0, errors.New("loadtest: malformed schedstat line")
	}
	return time.Duration(ns), nil
}
