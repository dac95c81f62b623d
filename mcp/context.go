package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
)

// Request-scoped values, behind typed accessors: the correlation id every
// log line and audit record of a request carries, and the authenticated
// caller that input rounds, tasks and legacy sessions are bound to.

type correlationKey struct{}

// CorrelationID returns the request's correlation id.
func CorrelationID(ctx context.Context) string {
	id, _ := ctx.Value(correlationKey{}).(string)
	return id
}

// WithCorrelationID records a correlation id in ctx.
func WithCorrelationID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, correlationKey{}, id)
}

type callerKey struct{}

// WithCaller records the authenticated caller's identity in ctx, so that
// an input round started by one caller cannot be finished by another.
func WithCaller(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callerKey{}, id)
}

// Caller returns the caller recorded by WithCaller, or "".
func Caller(ctx context.Context) string { return callerOf(ctx) }

func callerOf(ctx context.Context) string {
	id, _ := ctx.Value(callerKey{}).(string)
	return id
}

// logStoreFailure logs a state store call that failed while serving the
// request of ctx: at ERROR, unless the request's client has left, which
// ended the call; a client leaving is not a server error.
func logStoreFailure(ctx context.Context, log *slog.Logger, msg string, err error) {
	if ctx.Err() != nil {
		log.LogAttrs(ctx, slog.LevelDebug, msg+": the client left", slog.String("cause", err.Error()))
		return
	}
	log.LogAttrs(ctx, slog.LevelError, msg, slog.String("cause", err.Error()))
}

// newID returns a random 128-bit id in hex: correlation ids, session ids,
// task ids.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
