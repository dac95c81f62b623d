package limits

import (
	"slices"
	"time"
)

// RateDecision is the outcome of one take from a sliding-log rate window.
type RateDecision struct {
	// Allowed reports whether the request was admitted.
	Allowed bool
	// Policy is the policy the decision was made under.
	Policy RatePolicy
	// Remaining is how many more admissions the window allows right now.
	Remaining int
	// Reset is when the window will have recovered: on an allowed request,
	// the time until the window holds no admission at all (full quota); on a
	// denied one, the same as RetryAfter.
	Reset time.Duration
	// RetryAfter is, on a denied request, the time until one admission will
	// be possible again. Zero when Allowed.
	RetryAfter time.Duration
}

// TakeLog applies one take at now (microseconds since the Unix epoch) to a
// sliding log of earlier admissions. It is the algorithm every store
// adapter runs, inside its own atomic read-modify-write; it is exported for
// them.
//
// log holds admission timestamps in µs. Entries at or before now−window are
// dropped; an entry exactly window old still counts, so no closed interval
// of length window contains more than limit admissions. The request is
// admitted if fewer than limit entries remain; then now is inserted in
// order. The returned log is sorted, holds at most limit entries, and may
// alias the input. changed reports whether it differs from the input, so a
// store can skip the write on a denial that expired nothing.
func TakeLog(log []int64, nowUS int64, p RatePolicy) (next []int64, d RateDecision, changed bool) {
	windowUS := p.Window.Microseconds()
	cutoff := nowUS - windowUS // entries e with e < cutoff have left the window
	kept := make([]int64, 0, min(len(log)+1, p.Limit+1))
	for _, e := range log {
		if e >= cutoff {
			kept = append(kept, e)
		}
	}
	// Logs written by replicas with skewed clocks may arrive out of order.
	slices.Sort(kept)
	changed = len(kept) != len(log)
	d.Policy = p
	if len(kept) < p.Limit {
		i, _ := slices.BinarySearch(kept, nowUS)
		kept = slices.Insert(kept, i, nowUS)
		d.Allowed = true
		d.Remaining = p.Limit - len(kept)
		d.Reset = usToDuration(kept[len(kept)-1] + windowUS + 1 - nowUS)
		return kept, d, true
	}
	// Denied. Keep only the newest limit entries: with a lowered limit the
	// older ones can no longer change a decision.
	if len(kept) > p.Limit {
		kept = kept[len(kept)-p.Limit:]
		changed = true
	}
	// One admission becomes possible once the oldest kept entry has left the
	// window, i.e. at kept[0] + window + 1µs.
	retry := usToDuration(kept[0] + windowUS + 1 - nowUS)
	d.RetryAfter = retry
	d.Reset = retry
	return kept, d, changed
}

func usToDuration(us int64) time.Duration {
	if us < 0 {
		return 0
	}
	return time.Duration(us) * time.Microsecond
}
