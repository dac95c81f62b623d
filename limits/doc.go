// Package limits decides whether a credential may make a request or start a
// scan, and records what happened. It holds the hosted server's request-path
// controls:
//
//   - a transport rate limit per credential (default 120 requests per 60 s),
//   - scan quotas per credential: a short rate window and a monthly allowance,
//     charged at most once per call,
//   - concurrency slots for scans, held as leases with a TTL,
//   - an audit trail of every tool call.
//
// The package keeps no state of its own. State lives behind the small
// [Store] interface, implemented by the adapters in store/sqlite (embedded,
// the default) and store/postgres (shared by several replicas). The
// behaviour both must show is written once, in store/storetest.
//
// # Rate algorithm: sliding log
//
// Both rate windows use a sliding log: the store keeps, per key, the
// timestamps of at most Limit admissions, and a request is admitted only if
// fewer than Limit of them fall inside the window that ends now. The contract
// is therefore exact: no closed interval of length Window ever contains more
// than Limit admissions, whatever the arrival pattern. A fixed window counter
// would admit up to 2×Limit across a window boundary, and GCRA/token bucket
// with burst B admits up to B+Limit in a rolling window; both were rejected
// for that reason (see ratelog_test.go, which checks the property with a
// controlled clock and shows a fixed window breaking it). The cost is at most
// Limit timestamps (8 bytes each) per key, bounded by [MaxRateLimit].
//
// After a transport denial the Limiter keeps, in memory, the instant before
// which the store is certain to deny that credential again (the oldest
// counted admission cannot leave the window sooner, and other replicas can
// only add admissions), and refuses it from memory until then. Admissions
// always come from the store.
//
// Time is passed into every store call (microseconds since the epoch taken
// from [Config.Now]), never read from the database, so tests can control it.
// Replicas sharing a store must keep their clocks in sync (NTP); a skewed
// replica shifts its own view of the window by its skew, never the limit.
//
// # Scan admission and charging policy
//
// A tool that consumes quota calls [Limiter.BeginScan] after its arguments
// have been validated and before any work starts. A call refused by
// validation therefore never reaches the limiter and is not charged. In one
// store transaction, BeginScan:
//
//  1. refuses a scan whose key (tool + normalised arguments, see [ScanKey]) is
//     already running for the credential: duplicate_scan;
//  2. refuses when the credential holds MaxConcurrentScans live leases:
//     too_many_concurrent_scans;
//  3. refuses when ScannerCapacity live leases exist in total: scanner_busy;
//  4. if the call is charged: looks up the call's idempotency key (CallID)
//     in the ledger; a call already charged is admitted again without a
//     second charge. Otherwise it takes one unit from the scan rate window
//     (rate_limit_exceeded) and one from the UTC calendar month's allowance
//     (quota_exceeded) and writes the ledger row;
//  5. writes the lease.
//
// A refusal at any step rolls the whole transaction back: nothing is
// consumed by a refused call.
//
// The Limiter picks the lease id, and the ledger row records it. When the
// store does not answer an admission (its deadline passed, the connection
// broke), the store may have committed it all the same, so BeginScan
// cancels it by that id before refusing ([ScanStore.CancelAdmission]):
// what committed is undone (the slot freed, the charge given back), and
// what has not yet committed never will (the id is fenced). A
// cancellation the store cannot take waits in the Limiter and is retried
// by [Limiter.Settle]. No admission is ever left holding a slot or a
// charge that no call was told of, so the audit trail, which records what
// each call was told, agrees with the ledger. Refunds: a scan that ran and failed (target
// unreachable, timeout, findings or not) is not refunded, because the work
// was done. [Scan.Refund] exists for the one case where the server admitted
// the call but could not start the work (for example an internal error
// before the engine ran); it deletes the ledger row and gives the monthly
// unit back, so a retry with the same CallID is charged again. The short rate
// window is never refunded.
//
// # Leases
//
// A scan holds a lease with a TTL (default 180 s), the bound after which a
// slot abandoned by a crashed replica is reclaimed. [Scan.KeepAlive] renews
// it in the background every TTL/3 while the scan runs and cancels the scan's
// context if the lease is lost; [Scan.Release] frees it.
//
// # Failing closed
//
// Every control returns an error when it denies, and when its store cannot be
// evaluated it returns an *errcode.Error whose code ends in _unavailable
// (rate_limit_unavailable, quota_unavailable, scan_slots_unavailable,
// audit_unavailable) with a Retry-After hint. A caller that treats any
// non-nil error as "deny" can never admit a request because a control was
// down.
//
// A store that is slow is not down. Each store call waits while the store
// keeps answering (this call or any other of the Limiter's) and is
// refused once the store has answered nothing for the quiet period
// ([Config.TransportTimeout], [Config.ScanTimeout]), or once it has waited
// its longest wait however busy the store is ([Config.TransportMaxWait],
// [Config.ScanMaxWait]); see deadline.go. A loaded host or a queue for a
// connection therefore delays decisions instead of refusing them, while
// an outage is still refused after the quiet period. Each run of such
// refusals is logged once, at warn, with its cause ([Config.Logger]).
//
// # Audit
//
// [Limiter.Audit] records time, correlation id, credential, tenant, tool,
// outcome code, duration and quota charged for each tool call. It has no
// field for arguments or results, so it cannot leak them. It returns once
// the record is committed; records of calls that end together share one
// store transaction (group commit: the first of them waits for the commit
// before it, then writes all that joined meanwhile), so a busy server pays
// one commit for many calls, and no caller returns before its own record
// is stored.
package limits
