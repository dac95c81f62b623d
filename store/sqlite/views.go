package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/warden-mcp/warden/viewstore"
)

var _ viewstore.Store = (*Store)(nil)

// PutBlob implements viewstore.Store.
func (s *Store) PutBlob(ctx context.Context, sha256 string, data []byte, until time.Time) error {
	if len(data) > viewstore.MaxBlobSize {
		return viewstore.ErrTooLarge
	}
	if data == nil {
		data = []byte{} // NOT NULL
	}
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		_, err := tx.ExecContext(ctx, `INSERT INTO bin_blob (sha256, data, expires_us) VALUES (?, ?, ?)
			ON CONFLICT (sha256) DO UPDATE SET expires_us = max(expires_us, excluded.expires_us)`,
			sha256, data, until.UnixMicro())
		return err == nil, err
	})
}

// Blob implements viewstore.Store.
func (s *Store) Blob(ctx context.Context, sha256 string, now time.Time) ([]byte, error) {
	var b []byte
	err := s.ro.QueryRowContext(ctx, `SELECT data FROM bin_blob WHERE sha256 = ?1 AND (expires_us > ?2 OR EXISTS
		(SELECT 1 FROM bin_view v WHERE v.sha256 = ?1 AND v.expires_us > ?2))`, sha256, now.UnixMicro()).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, viewstore.ErrNotFound
	}
	return b, err
}

// Grant implements viewstore.Store.
func (s *Store) Grant(ctx context.Context, tenant, sha256 string, until time.Time) error {
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		_, err := tx.ExecContext(ctx, `INSERT INTO bin_access (tenant, sha256, expires_us) VALUES (?, ?, ?)
			ON CONFLICT (tenant, sha256) DO UPDATE SET expires_us = max(expires_us, excluded.expires_us)`,
			tenant, sha256, until.UnixMicro())
		return err == nil, err
	})
}

// Granted implements viewstore.Store.
func (s *Store) Granted(ctx context.Context, tenant, sha256 string, now time.Time) (bool, error) {
	var one int
	err := s.ro.QueryRowContext(ctx, `SELECT 1 FROM bin_access WHERE tenant = ? AND sha256 = ? AND expires_us > ?`,
		tenant, sha256, now.UnixMicro()).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// PutAnalysis implements viewstore.Store.
func (s *Store) PutAnalysis(ctx context.Context, key, sha256 string, snapshot []byte, until time.Time) error {
	if len(snapshot) > viewstore.MaxSnapshotSize {
		return viewstore.ErrTooLarge
	}
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		_, err := tx.ExecContext(ctx, `INSERT INTO bin_analysis (cache_key, sha256, snapshot, expires_us) VALUES (?, ?, ?, ?)
			ON CONFLICT (cache_key) DO UPDATE SET expires_us = max(expires_us, excluded.expires_us)`,
			key, sha256, snapshot, until.UnixMicro())
		return err == nil, err
	})
}

// Analysis implements viewstore.Store.
func (s *Store) Analysis(ctx context.Context, key string, now time.Time) ([]byte, error) {
	var b []byte
	err := s.ro.QueryRowContext(ctx, `SELECT snapshot FROM bin_analysis a WHERE cache_key = ?1 AND (expires_us > ?2 OR EXISTS
		(SELECT 1 FROM bin_view v WHERE v.sha256 = a.sha256 AND v.expires_us > ?2))`, key, now.UnixMicro()).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, viewstore.ErrNotFound
	}
	return b, err
}

const viewColumns = `caller, id, tenant, sha256, name, options, path, size, opened_us, used_us, expires_us`

type rowScanner interface{ Scan(dest ...any) error }

func scanView(r rowScanner) (viewstore.View, error) {
	var v viewstore.View
	var opened, used, expires int64
	err := r.Scan(&v.Caller, &v.ID, &v.Tenant, &v.SHA256, &v.Name, &v.Options, &v.Path, &v.Size, &opened, &used, &expires)
	v.Opened, v.Used, v.Expires = time.UnixMicro(opened).UTC(), time.UnixMicro(used).UTC(), time.UnixMicro(expires).UTC()
	return v, err
}

func checkView(v viewstore.View) error {
	if len(v.Options) > viewstore.MaxOptionsSize || len(v.Name) > viewstore.MaxNameSize || len(v.Path) > viewstore.MaxPathSize {
		return viewstore.ErrTooLarge
	}
	return nil
}

// OpenView implements viewstore.Store. The write transaction serialises
// it with every other writer of the file, so the count and the insert
// are one step for every process on the host.
func (s *Store) OpenView(ctx context.Context, v viewstore.View, max int) (viewstore.View, error) {
	if err := checkView(v); err != nil {
		return viewstore.View{}, err
	}
	if v.Options == nil {
		v.Options = []byte{}
	}
	var out viewstore.View
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		now := v.Used.UnixMicro()
		var opened int64
		err := tx.QueryRowContext(ctx, `SELECT opened_us FROM bin_view WHERE caller = ? AND id = ? AND expires_us > ?`,
			v.Caller, v.ID, now).Scan(&opened)
		switch {
		case err == nil:
			v.Opened = time.UnixMicro(opened).UTC()
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, `DELETE FROM bin_view WHERE caller = ? AND expires_us <= ?`, v.Caller, now); err != nil {
				return false, err
			}
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM bin_view WHERE caller = ?`, v.Caller).Scan(&n); err != nil {
				return false, err
			}
			if n >= max {
				return false, viewstore.ErrTooManyViews
			}
		default:
			return false, err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO bin_view (`+viewColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (caller, id) DO UPDATE SET tenant = excluded.tenant, sha256 = excluded.sha256, name = excluded.name,
				options = excluded.options, path = excluded.path, size = excluded.size, opened_us = excluded.opened_us,
				used_us = excluded.used_us, expires_us = excluded.expires_us`,
			v.Caller, v.ID, v.Tenant, v.SHA256, v.Name, v.Options, v.Path, v.Size,
			v.Opened.UnixMicro(), v.Used.UnixMicro(), v.Expires.UnixMicro())
		out = v
		return err == nil, err
	})
	if err != nil {
		return viewstore.View{}, err
	}
	return out, nil
}

// View implements viewstore.Store.
func (s *Store) View(ctx context.Context, caller, id string, now time.Time) (viewstore.View, error) {
	v, err := scanView(s.ro.QueryRowContext(ctx, `SELECT `+viewColumns+` FROM bin_view
		WHERE caller = ? AND id = ? AND expires_us > ?`, caller, id, now.UnixMicro()))
	if errors.Is(err, sql.ErrNoRows) {
		return viewstore.View{}, viewstore.ErrNotFound
	}
	return v, err
}

// Views implements viewstore.Store.
func (s *Store) Views(ctx context.Context, caller string, now time.Time) ([]viewstore.View, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT `+viewColumns+` FROM bin_view
		WHERE caller = ? AND expires_us > ? ORDER BY opened_us, id`, caller, now.UnixMicro())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []viewstore.View{}
	for rows.Next() {
		v, err := scanView(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// TouchView implements viewstore.Store.
func (s *Store) TouchView(ctx context.Context, caller, id string, used, until time.Time) error {
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		res, err := tx.ExecContext(ctx, `UPDATE bin_view SET used_us = ?, expires_us = ?
			WHERE caller = ? AND id = ? AND expires_us > ?`, used.UnixMicro(), until.UnixMicro(), caller, id, used.UnixMicro())
		if err != nil {
			return false, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return false, viewstore.ErrNotFound
		}
		return true, nil
	})
}

// CloseView implements viewstore.Store.
func (s *Store) CloseView(ctx context.Context, caller, id string, now time.Time) (bool, error) {
	var live bool
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		var expires int64
		err := tx.QueryRowContext(ctx, `DELETE FROM bin_view WHERE caller = ? AND id = ? RETURNING expires_us`, caller, id).Scan(&expires)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		live = expires > now.UnixMicro()
		return true, nil
	})
	return live, err
}

// ChargeUpload implements viewstore.Store.
func (s *Store) ChargeUpload(ctx context.Context, credential, day string, n, limit int64) (int64, error) {
	var used int64
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		err := tx.QueryRowContext(ctx, `INSERT INTO bin_upload (credential, day, bytes) SELECT ?, ?, ? WHERE ? <= ?
			ON CONFLICT (credential, day) DO UPDATE SET bytes = bytes + excluded.bytes WHERE bytes + excluded.bytes <= ?
			RETURNING bytes`, credential, day, n, n, limit, limit).Scan(&used)
		if errors.Is(err, sql.ErrNoRows) {
			return false, viewstore.ErrQuotaExceeded
		}
		return err == nil, err
	})
	return used, err
}

// pruneViews deletes expired binary-view rows at now (µs): views, grants,
// earlier days' upload counts, and expired blobs and analyses that no
// live view needs.
func pruneViews(ctx context.Context, tx *sql.Tx, now int64, day string) error {
	for _, q := range []string{
		`DELETE FROM bin_view WHERE expires_us <= ?1`,
		`DELETE FROM bin_access WHERE expires_us <= ?1`,
		`DELETE FROM bin_blob WHERE expires_us <= ?1 AND NOT EXISTS
			(SELECT 1 FROM bin_view v WHERE v.sha256 = bin_blob.sha256 AND v.expires_us > ?1)`,
		`DELETE FROM bin_analysis WHERE expires_us <= ?1 AND NOT EXISTS
			(SELECT 1 FROM bin_view v WHERE v.sha256 = bin_analysis.sha256 AND v.expires_us > ?1)`,
	} {
		if _, err := tx.ExecContext(ctx, q, now); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM bin_upload WHERE day < ?`, day)
	return err
}
