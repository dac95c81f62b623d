package telemetry

import "time"

// RequestStats describe one served request of the protocol endpoint. The
// fields are those of the protocol engine's own record (mcp.RequestStats),
// in its order, so that the wiring converts one into the other; telemetry
// does not import the engine it observes.
type RequestStats struct {
	// Method is the JSON-RPC method of a POST, "" when its body was
	// refused before it was parsed, and the HTTP verb (GET, DELETE)
	// otherwise. It comes from the client: bounded before it becomes a
	// label.
	Method string
	// Era is "modern", "legacy", or "" when the request was refused
	// before its era was known.
	Era string
	// Status is the HTTP status answered (200 for a stream).
	Status   int
	Duration time.Duration
	// CorrelationID is the request's correlation id.
	CorrelationID string
}

// HTTPStats is what the protocol endpoint holds open now (the fields of
// mcp.HTTPStats).
type HTTPStats struct {
	InFlight int // requests holding an in-flight slot
	Sessions int // legacy sessions
	Streams  int // legacy GET streams open
}
