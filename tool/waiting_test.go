package tool

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type note struct {
	Progress, Total float64
	Message         string
}

// Notifications sent while a call waits for admission, then the handler's
// own, form one increasing sequence: the handler's 0..1 is moved past the
// waiting steps, its total with it.
func TestReportWaitingShiftsHandlerProgress(t *testing.T) {
	var got []note
	env := CallEnv{
		Progress: func(p, total float64, msg string) { got = append(got, note{p, total, msg}) },
	}
	type in struct{}
	tl, err := New(Def{Name: "slow_scan", Description: "Scans.", Annotations: Annotations{ReadOnly: true}, Catalog: Catalog{Category: "test", Trust: TrustAuto}},
		func(ctx context.Context, c *Call, _ in) (string, error) {
			if _, err := c.Begin(ctx); err != nil {
				return "", err
			}
			c.Progress(0, 1, "scanning")
			c.Progress(0.5, 1, "half")
			c.Progress(1, 1, "done")
			return "ok", nil
		})
	if err != nil {
		t.Fatal(err)
	}
	c := NewCall(tl, json.RawMessage(`{}`), env)
	c.SetAdmission(func(ctx context.Context) (context.Context, error) {
		ReportWaiting(ctx, "waiting: 1 ahead")
		ReportWaiting(ctx, "waiting: first in line")
		return ctx, nil
	})
	res := Invoke(context.Background(), c).Result
	if res.IsError {
		t.Fatalf("%+v", res)
	}
	want := []note{{0, 0, "waiting: 1 ahead"}, {1, 0, "waiting: first in line"}, {2, 3, "scanning"}, {2.5, 3, "half"}, {3, 3, "done"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	// Outside an admission, or without a progress token, it does nothing.
	ReportWaiting(context.Background(), "nobody listens")
	if len(got) != len(want) {
		t.Error("ReportWaiting reported outside an admission")
	}
}
