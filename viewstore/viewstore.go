// Package viewstore defines what binary views keep in a store shared by
// every replica: file contents by SHA-256 (blobs), which tenant may use
// which file, cached analyses, each caller's open views and the daily
// upload allowance. A second replica, or a restarted one, rebuilds any
// open view from it without asking the caller to open the file again.
//
// The store holds no identity in the clear: callers and credentials are
// keyed by digests the adapter above it computes. It enforces the
// per-caller view limit atomically, so a limit holds across replicas.
// Every row has an expiry; Prune in each adapter deletes expired rows,
// keeping blobs and analyses that a live view still needs.
//
// store/sqlite and store/postgres implement Store; Memory is a bounded
// in-process Store for tests and for a server without a database.
// Package viewstoretest is the behaviour suite every Store passes.
package viewstore

import (
	"context"
	"errors"
	"time"
)

// Size caps. Adapters refuse larger values with ErrTooLarge.
const (
	// MaxBlobSize bounds one blob: the largest file a local user may
	// open (binview.LocalMaxFileSize).
	MaxBlobSize = 512 << 20
	// MaxSnapshotSize bounds one cached analysis.
	MaxSnapshotSize = 256 << 20
	// MaxOptionsSize bounds a view's encoded load options.
	MaxOptionsSize = 4 << 10
	// MaxNameSize bounds a view's display name.
	MaxNameSize = 255
	// MaxPathSize bounds the server-side path of a path-backed view.
	MaxPathSize = 4096
)

// Errors the adapters return; test with errors.Is.
var (
	// ErrNotFound: no live row has that key (absent or expired).
	ErrNotFound = errors.New("viewstore: not found")
	// ErrTooManyViews: the caller has the maximum number of live views
	// open.
	ErrTooManyViews = errors.New("viewstore: too many open views")
	// ErrQuotaExceeded: the upload would pass the day's allowance.
	ErrQuotaExceeded = errors.New("viewstore: upload quota exceeded")
	// ErrTooLarge: a value is over its size cap.
	ErrTooLarge = errors.New("viewstore: value too large")
)

// View is one open view of one caller. The caller opened the file with
// SHA256 under the load options Options (an encoding the adapter above
// chose) and named it Name. A path-backed view keeps the server-side
// Path it was read from, which is never shown to a client; a view with no
// Path has its bytes in the blob SHA256.
type View struct {
	Caller  string // digest of the caller's identity
	ID      string // the view's id, unique per caller
	Tenant  string
	SHA256  string // lower-case hex
	Name    string
	Options []byte
	Path    string
	Size    int64
	// Opened is when the view was first opened; a reopening keeps it.
	Opened time.Time
	// Used is the last use, Expires when the view lapses unused.
	Used    time.Time
	Expires time.Time
}

// Store keeps what binary views need. Every method is safe for concurrent
// use, from any number of replicas; times come from the caller, never
// from the database's clock.
type Store interface {
	// PutBlob stores data under its SHA-256 (lower-case hex, which the
	// caller computed) until at least until; storing a blob that exists
	// only extends its expiry.
	PutBlob(ctx context.Context, sha256 string, data []byte, until time.Time) error
	// Blob returns a live blob's bytes, or ErrNotFound. A blob lives
	// until its expiry, and after it while a live view of any caller
	// has the same SHA256 (so that any replica can rebuild the view).
	Blob(ctx context.Context, sha256 string, now time.Time) ([]byte, error)

	// Grant records that tenant may use the file sha256 (it uploaded or
	// opened it) until at least until.
	Grant(ctx context.Context, tenant, sha256 string, until time.Time) error
	// Granted reports whether tenant may use sha256 at now.
	Granted(ctx context.Context, tenant, sha256 string, now time.Time) (bool, error)

	// PutAnalysis caches a snapshot under key, for the file sha256,
	// until at least until.
	PutAnalysis(ctx context.Context, key, sha256 string, snapshot []byte, until time.Time) error
	// Analysis returns a live cached snapshot, or ErrNotFound. Like a
	// blob, it lives past its expiry while a live view has its SHA256.
	Analysis(ctx context.Context, key string, now time.Time) ([]byte, error)

	// OpenView records v as open, or refreshes it when the caller has a
	// live view with v.ID (keeping its Opened time), and returns the
	// stored row. A new view is refused with ErrTooManyViews when the
	// caller already has max live views at v.Used.
	OpenView(ctx context.Context, v View, max int) (View, error)
	// View returns a caller's live view, or ErrNotFound.
	View(ctx context.Context, caller, id string, now time.Time) (View, error)
	// Views lists a caller's live views, oldest first.
	Views(ctx context.Context, caller string, now time.Time) ([]View, error)
	// TouchView records a use of a live view at used and moves its
	// expiry to until; ErrNotFound when it is not live.
	TouchView(ctx context.Context, caller, id string, used, until time.Time) error
	// CloseView deletes a caller's view and reports whether a live one
	// was there.
	CloseView(ctx context.Context, caller, id string, now time.Time) (bool, error)

	// ChargeUpload adds n bytes to credential's uploads of day (UTC
	// "2006-01-02") and returns the new total, unless it would pass
	// limit: then nothing is charged and the error is ErrQuotaExceeded.
	ChargeUpload(ctx context.Context, credential, day string, n, limit int64) (int64, error)
}

// Day is the UTC day key of t for ChargeUpload.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }
