package loadtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Record is one run as loadclient -json prints it.
type Record struct {
	Label               string  `json:"label,omitempty"`
	Scenario            string  `json:"scenario"`
	Conns               int     `json:"conns"`
	Requests            uint64  `json:"requests"`
	Failures            uint64  `json:"failures"`
	WindowSeconds       float64 `json:"windowSeconds"`
	PerSecond           float64 `json:"perSecond"`
	P50us               float64 `json:"p50Micros"`
	P90us               float64 `json:"p90Micros"`
	P99us               float64 `json:"p99Micros"`
	MaxUs               float64 `json:"maxMicros"`
	ServerCPUPerRequest float64 `json:"serverCPUMicrosPerRequest,omitempty"`
	ClientCPUPerRequest float64 `json:"clientCPUMicrosPerRequest,omitempty"`
}

// maxRecords bounds how many runs Summarize reads.
const maxRecords = 10000

// Summarize reads Records, one JSON object per line, and writes a
// Markdown table with one row per scenario and label: the median of each
// figure over the rounds, with the range of req/s.
func Summarize(r io.Reader, w io.Writer) error {
	type key struct{ scenario, label string }
	groups := map[key][]Record{}
	var order []key
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if n++; n > maxRecords {
			return fmt.Errorf("loadtest: more than %d records", maxRecords)
		}
		var rec Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return fmt.Errorf("loadtest: record %d: %w", n, err)
		}
		k := key{rec.Scenario, rec.Label}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], rec)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Fprintln(w, "| scenario | impl | rounds | req/s median [min–max] | p50 µs | p99 µs | server CPU µs/req | implied req/s per core | client CPU µs/req | failures |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, k := range order {
		g := groups[k]
		pick := func(f func(Record) float64) []float64 {
			v := make([]float64, len(g))
			for i, r := range g {
				v[i] = f(r)
			}
			slices.Sort(v)
			return v
		}
		rps := pick(func(r Record) float64 { return r.PerSecond })
		cpu := median(pick(func(r Record) float64 { return r.ServerCPUPerRequest }))
		var fails uint64
		for _, r := range g {
			fails += r.Failures
		}
		implied := "–"
		if cpu > 0 {
			implied = fmt.Sprintf("%.0f", 1e6/cpu)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.0f [%.0f–%.0f] | %.0f | %.0f | %.1f | %s | %.1f | %d |\n",
			k.scenario, k.label, len(g), median(rps), rps[0], rps[len(rps)-1],
			median(pick(func(r Record) float64 { return r.P50us })),
			median(pick(func(r Record) float64 { return r.P99us })),
			cpu, implied, median(pick(func(r Record) float64 { return r.ClientCPUPerRequest })), fails)
	}
	return nil
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
