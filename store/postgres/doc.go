// Package postgres is the shared storage adapter for package limits: one
// PostgreSQL database (through pgx/v5) that several server replicas use at
// once, so limits hold across all of them.
//
// Everything lives in one schema (default "warden"), created on first use;
// each replica applies pending migrations at start under an advisory lock,
// so concurrent starts are safe. The transport rate limit is a single
// round trip to a PL/pgSQL function that runs the sliding log under a row
// lock on an UNLOGGED table: its state resets if PostgreSQL crashes or fails
// over, which only gives credentials a fresh window. Quotas, the charge
// ledger, leases and the audit log are in ordinary (logged) tables. Scan
// admission is one call to a PL/pgSQL function that takes a
// transaction-scoped advisory lock, so it works behind PgBouncer in
// transaction mode.
//
// Times are passed in by the caller, never taken from PostgreSQL's clock:
// replicas must keep their clocks in sync (NTP). Connections carry
// statement_timeout and lock_timeout so a stuck server fails calls instead
// of holding them.
package postgres
