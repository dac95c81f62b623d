package mcp

import "context"

// ServeMessage serves one message of the stateless 2026-07-28 revision in
// process: the request in, the response out (nil for a notification).
// Related notifications (progress, logs) go to sink, which may be nil.
// It is the transport of tests and of tool authors' harnesses: what it
// returns is byte for byte what a stdio client would read.
func (s *Server) ServeMessage(ctx context.Context, msg []byte, sink Sink) []byte {
	m, perr := ParseMessage(msg)
	if perr != nil {
		var id []byte
		if m != nil {
			id = m.ID
		}
		return appendError(nil, id, perr)
	}
	if !m.IsRequest() {
		return nil
	}
	if sink == nil {
		sink = discardSink{}
	}
	p, err := splitParams(m.Params)
	if err == nil {
		err = checkModernMeta(&p)
	}
	if err == nil {
		err = checkVersion(p.meta.version)
	}
	if err != nil {
		return appendError(nil, m.ID, err)
	}
	res, rerr := s.serveModern(ctx, m, &p, sink)
	if rerr != nil {
		return appendError(nil, m.ID, rerr)
	}
	if res == nil {
		return nil
	}
	return appendResponse(nil, m.ID, res)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(msg []byte) error

// Send calls f.
func (f SinkFunc) Send(msg []byte) error { return f(msg) }
