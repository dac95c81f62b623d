// Package loadtest measures an MCP endpoint over loopback: a fixed number
// of keep-alive HTTP/1.1 connections, each with one request outstanding,
// send the same request for a warm-up and then a fixed window, and every
// response completed inside the window is checked and its latency
// recorded in a log-linear histogram (1.6 % precision) for p50/p90/p99.
//
// The client writes a pre-rendered request and reads the response with a
// minimal parser, so that on one core it can drive a server much faster
// than the targets it checks. Given the server's process id it also reads
// the server's CPU time at the edges of the window, which gives a cost per
// request that does not depend on how busy the machine is.
//
// The servers it is run against live under cmd/: wardenserver and
// gosdkserver serve the same echo tool (package fixture); loadclient
// drives them. scripts/bench-protocol.sh runs them pinned to separate
// cores.
package loadtest
