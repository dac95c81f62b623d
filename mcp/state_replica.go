package mcp

import (
	"context"
	"errors"
	"time"

	"github.com/warden-mcp/warden/statestore"
)

// A replica that stops without warning (killed, crashed) cannot say that
// the calls and tasks it ran are lost. Each server therefore keeps a
// record of its own alive in the state store, renewed every
// replicaBeat and gone replicaTTL after the last renewal; a task, and a
// stream that lost its client, name the replica that runs them, and
// another replica that finds that record gone ends them with
// replica_lost instead of leaving them working until they expire.

const (
	replicaBeat = 2 * time.Second
	replicaTTL  = 10 * time.Second
)

// heartbeat keeps this server's record alive until ctx ends, then
// removes it.
func (s *Server) heartbeat(ctx context.Context) {
	var version int64
	beat := func() {
		bctx, cancel := context.WithTimeout(ctx, stateTimeout)
		defer cancel()
		rec := statestore.Record{Kind: "replica", ID: s.instance, Data: []byte("{}"), Version: version, Expires: time.Now().Add(replicaTTL)}
		v, err := s.state.PutState(bctx, rec)
		if err != nil && (errors.Is(err, statestore.ErrNotFound) || errors.Is(err, statestore.ErrConflict)) {
			rec.Version = 0
			v, err = s.state.PutState(bctx, rec)
		}
		if err == nil {
			version = v
		}
	}
	beat()
	t := time.NewTicker(replicaBeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			dctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
			_ = s.state.DeleteState(dctx, "replica", s.instance)
			cancel()
			return
		case <-t.C:
			beat()
		}
	}
}

// replicaGone reports whether the replica named instance has stopped: its
// record is gone. It reports false when the store cannot say.
func (s *Server) replicaGone(ctx context.Context, instance string) bool {
	if instance == "" || instance == s.instance {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	_, err := s.state.GetState(ctx, "replica", instance, time.Now())
	return errors.Is(err, statestore.ErrNotFound)
}

// replicaLost is the outcome of a call whose replica stopped before it
// ended.
func replicaLost() *Error {
	e := rpcErr(CodeInternalError, KindInternal, "the replica serving this call stopped before the call ended; call again")
	e.Data = map[string]string{"code": "replica_lost"}
	return e
}
