package tool

import (
	"context"
	"encoding/json"
	"errors"
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
		Begin: func(ctx context.Context) (context.Context, error) {
			ReportWaiting(ctx, "waiting: 1 ahead")
			ReportWaiting(ctx, "waiting: first in line")
			return ctx, nil
		},
	}
	type in struct{}
	tl, err := New(Def{Name: "slow_scan", Description: "Scans.", Catalog: Catalog{Category: "test", Trust: TrustAuto}},
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
	res := tl.Invoke(context.Background(), NewCall(tl.Name, env), json.RawMessage(`{}`))
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

// A tool with an output schema gets no structured error, so its error
// details travel as a second text block; without a schema they are in
// the structured content.
func TestErrorDetailsReachTheClient(t *testing.T) {
	type out struct {
		N int `json:"n"`
	}
	refusal := &Error{Code: "too_many_concurrent_scans", Message: "too many concurrent scans", Details: map[string]any{"retryAfterSeconds": 12}}
	withSchema, err := New(Def{Name: "typed_out", Description: "Typed.", Catalog: Catalog{Category: "test", Trust: TrustAuto}},
		func(context.Context, *Call, struct{}) (*out, error) { return nil, refusal })
	if err != nil {
		t.Fatal(err)
	}
	res := withSchema.Invoke(context.Background(), NewCall("typed_out", CallEnv{}), json.RawMessage(`{}`))
	if len(res.Content) != 2 || res.Content[1].Text != `{"retryAfterSeconds":12}` || res.Structured != nil {
		t.Errorf("with an output schema: %+v", res)
	}
	plain, err := New(Def{Name: "plain_out", Description: "Plain.", Catalog: Catalog{Category: "test", Trust: TrustAuto}},
		func(context.Context, *Call, struct{}) (string, error) { return "", errors.Join(refusal) })
	if err != nil {
		t.Fatal(err)
	}
	res = plain.Invoke(context.Background(), NewCall("plain_out", CallEnv{}), json.RawMessage(`{}`))
	if len(res.Content) != 1 || string(res.Structured) != `{"errorCode":"too_many_concurrent_scans","errorMessage":"too many concurrent scans","details":{"retryAfterSeconds":12}}` {
		t.Errorf("without an output schema: %+v %s", res, res.Structured)
	}
}
