// Package sqlite is the embedded storage adapter for package limits: one
// SQLite database file in a state directory, through the pure-Go
// modernc.org/sqlite driver (no cgo).
//
// It is the default store for a single server. Several processes on the same
// host may share the file (WAL mode, busy timeout); the file must not live on
// a network filesystem. Replicas on several hosts use store/postgres instead.
//
// Writes run in BEGIN IMMEDIATE transactions over a single connection per
// process, so decisions within a process queue in Go (bounded by the
// caller's context) instead of spinning in SQLite's busy handler. Schema
// migrations are versioned and applied by Open; see migrate.go.
package sqlite
