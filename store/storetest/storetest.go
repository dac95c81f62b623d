// Package storetest is the behaviour suite every limits.Store adapter must
// pass. An adapter's test calls Run with a function that sets up a fresh,
// empty database and returns a Backend for it.
//
// The suite uses a controlled clock: every time it passes to the store is
// chosen by the test, never read from the database or the wall clock. Its
// concurrency tests run many goroutines across two Instances (separate
// handles or pools on one database), standing in for two server replicas.
package storetest

import (
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// Backend is one fresh database under test.
type Backend interface {
	// Instance opens a new handle (its own connection pool) on the
	// backend's database and registers its cleanup with t. Each handle
	// plays one server replica.
	Instance(t *testing.T) limits.Store
	// Break makes the database unreachable for every instance, including
	// connections already open, until Restore.
	Break(t *testing.T)
	// Restore undoes Break.
	Restore(t *testing.T)
}

// Run runs the whole suite. newBackend is called once per subtest.
func Run(t *testing.T, newBackend func(t *testing.T) Backend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, b Backend)
	}{
		{"Ping", testPing},
		{"RateExactUnderConcurrency", testRateExactUnderConcurrency},
		{"RateRollingWindowProperty", testRateRollingWindowProperty},
		{"RateKeysIndependent", testRateKeysIndependent},
		{"MonthlyQuotaExactUnderConcurrency", testMonthlyQuotaExact},
		{"ChargedOncePerCall", testChargedOncePerCall},
		{"RefusalsConsumeNothing", testRefusalsConsumeNothing},
		{"MonthRollover", testMonthRollover},
		{"UnlimitedMonthlyStillCounts", testUnlimitedMonthly},
		{"Refund", testRefund},
		{"SlotSequence", testSlotSequence},
		{"SlotsExactUnderConcurrency", testSlotsExactUnderConcurrency},
		{"Leases", testLeases},
		{"AbandonedLeaseExpires", testAbandonedLeaseExpires},
		{"CancelAdmission", testCancelAdmission},
		{"Audit", testAudit},
		{"AuditBatch", testAuditBatch},
		{"AuditConcurrentCalls", testAuditConcurrentCalls},
		{"AuditRetryKeepsOne", testAuditRetryKeepsOne},
		{"Usage", testUsage},
		{"FailClosedAndRecover", testFailClosedAndRecover},
		{"FailClosedMidRun", testFailClosedMidRun},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, newBackend(t))
		})
	}
}

// t0 is the suite's epoch: mid-month, so month arithmetic is visible.
var t0 = time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC)
