package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/warden-mcp/warden/viewstore"
)

var _ viewstore.Store = (*Store)(nil)

// bulkTimeout bounds a statement that moves a blob or a snapshot (up to
// hundreds of MiB), in place of the request path's short
// statement_timeout.
const bulkTimeout = "60s"

// bulk runs fn in a transaction whose statements may take bulkTimeout.
func (s *Store) bulk(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL statement_timeout = '`+bulkTimeout+`'`); err != nil {
			return err
		}
		return fn(tx)
	})
}

// PutBlob implements viewstore.Store.
func (s *Store) PutBlob(ctx context.Context, sha256 string, data []byte, until time.Time) error {
	if len(data) > viewstore.MaxBlobSize {
		return viewstore.ErrTooLarge
	}
	if data == nil {
		data = []byte{}
	}
	return s.bulk(ctx, func(tx pgx.Tx) error {
		// Extend an existing blob without sending its bytes again when
		// it is there; insert otherwise.
		tag, err := tx.Exec(ctx, `UPDATE bin_blob SET expires_us = greatest(expires_us, $2) WHERE sha256 = $1`, sha256, until.UnixMicro())
		if err != nil || tag.RowsAffected() > 0 {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO bin_blob (sha256, data, expires_us) VALUES ($1, $2, $3)
			ON CONFLICT (sha256) DO UPDATE SET expires_us = greatest(bin_blob.expires_us, excluded.expires_us)`,
			sha256, data, until.UnixMicro())
		return err
	})
}

// Blob implements viewstore.Store.
func (s *Store) Blob(ctx context.Context, sha256 string, now time.Time) ([]byte, error) {
	var b []byte
	err := s.bulk(ctx, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT data FROM bin_blob WHERE sha256 = $1 AND (expires_us > $2 OR EXISTS
			(SELECT 1 FROM bin_view v WHERE v.sha256 = $1 AND v.expires_us > $2))`, sha256, now.UnixMicro()).Scan(&b)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, viewstore.ErrNotFound
	}
	return b, err
}

// Grant implements viewstore.Store.
func (s *Store) Grant(ctx context.Context, tenant, sha256 string, until time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO bin_access (tenant, sha256, expires_us) VALUES ($1, $2, $3)
		ON CONFLICT (tenant, sha256) DO UPDATE SET expires_us = greatest(bin_access.expires_us, excluded.expires_us)`,
		tenant, sha256, until.UnixMicro())
	return err
}

// Granted implements viewstore.Store.
func (s *Store) Granted(ctx context.Context, tenant, sha256 string, now time.Time) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM bin_access WHERE tenant = $1 AND sha256 = $2 AND expires_us > $3)`,
		tenant, sha256, now.UnixMicro()).Scan(&ok)
	return ok, err
}

// PutAnalysis implements viewstore.Store.
func (s *Store) PutAnalysis(ctx context.Context, key, sha256 string, snapshot []byte, until time.Time) error {
	if len(snapshot) > viewstore.MaxSnapshotSize {
		return viewstore.ErrTooLarge
	}
	return s.bulk(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE bin_analysis SET expires_us = greatest(expires_us, $2) WHERE cache_key = $1`, key, until.UnixMicro())
		if err != nil || tag.RowsAffected() > 0 {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO bin_analysis (cache_key, sha256, snapshot, expires_us) VALUES ($1, $2, $3, $4)
			ON CONFLICT (cache_key) DO UPDATE SET expires_us = greatest(bin_analysis.expires_us, excluded.expires_us)`,
			key, sha256, snapshot, until.UnixMicro())
		return err
	})
}

// Analysis implements viewstore.Store.
func (s *Store) Analysis(ctx context.Context, key string, now time.Time) ([]byte, error) {
	var b []byte
	err := s.bulk(ctx, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT snapshot FROM bin_analysis a WHERE cache_key = $1 AND (expires_us > $2 OR EXISTS
			(SELECT 1 FROM bin_view v WHERE v.sha256 = a.sha256 AND v.expires_us > $2))`, key, now.UnixMicro()).Scan(&b)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, viewstore.ErrNotFound
	}
	return b, err
}

const viewColumns = `caller, id, tenant, sha256, name, options, path, size, opened_us, used_us, expires_us`

func scanView(r pgx.Row) (viewstore.View, error) {
	var v viewstore.View
	var opened, used, expires int64
	err := r.Scan(&v.Caller, &v.ID, &v.Tenant, &v.SHA256, &v.Name, &v.Options, &v.Path, &v.Size, &opened, &used, &expires)
	v.Opened, v.Used, v.Expires = time.UnixMicro(opened).UTC(), time.UnixMicro(used).UTC(), time.UnixMicro(expires).UTC()
	return v, err
}

// OpenView implements viewstore.Store. A transaction-scoped advisory lock
// per caller makes the count and the insert one step for every replica.
func (s *Store) OpenView(ctx context.Context, v viewstore.View, max int) (viewstore.View, error) {
	if len(v.Options) > viewstore.MaxOptionsSize || len(v.Name) > viewstore.MaxNameSize || len(v.Path) > viewstore.MaxPathSize {
		return viewstore.View{}, viewstore.ErrTooLarge
	}
	if v.Options == nil {
		v.Options = []byte{}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		now := v.Used.UnixMicro()
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey(s.schema, "view:"+v.Caller)); err != nil {
			return err
		}
		var opened int64
		err := tx.QueryRow(ctx, `SELECT opened_us FROM bin_view WHERE caller = $1 AND id = $2 AND expires_us > $3`,
			v.Caller, v.ID, now).Scan(&opened)
		switch {
		case err == nil:
			v.Opened = time.UnixMicro(opened).UTC()
		case errors.Is(err, pgx.ErrNoRows):
			if _, err := tx.Exec(ctx, `DELETE FROM bin_view WHERE caller = $1 AND expires_us <= $2`, v.Caller, now); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM bin_view WHERE caller = $1`, v.Caller).Scan(&n); err != nil {
				return err
			}
			if n >= max {
				return viewstore.ErrTooManyViews
			}
		default:
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO bin_view (`+viewColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (caller, id) DO UPDATE SET tenant = excluded.tenant, sha256 = excluded.sha256, name = excluded.name,
				options = excluded.options, path = excluded.path, size = excluded.size, opened_us = excluded.opened_us,
				used_us = excluded.used_us, expires_us = excluded.expires_us`,
			v.Caller, v.ID, v.Tenant, v.SHA256, v.Name, v.Options, v.Path, v.Size,
			v.Opened.UnixMicro(), v.Used.UnixMicro(), v.Expires.UnixMicro())
		return err
	})
	if err != nil {
		return viewstore.View{}, err
	}
	return v, nil
}

// View implements viewstore.Store.
func (s *Store) View(ctx context.Context, caller, id string, now time.Time) (viewstore.View, error) {
	v, err := scanView(s.pool.QueryRow(ctx, `SELECT `+viewColumns+` FROM bin_view
		WHERE caller = $1 AND id = $2 AND expires_us > $3`, caller, id, now.UnixMicro()))
	if errors.Is(err, pgx.ErrNoRows) {
		return viewstore.View{}, viewstore.ErrNotFound
	}
	return v, err
}

// Views implements viewstore.Store.
func (s *Store) Views(ctx context.Context, caller string, now time.Time) ([]viewstore.View, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+viewColumns+` FROM bin_view
		WHERE caller = $1 AND expires_us > $2 ORDER BY opened_us, id`, caller, now.UnixMicro())
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
	tag, err := s.pool.Exec(ctx, `UPDATE bin_view SET used_us = $1, expires_us = $2
		WHERE caller = $3 AND id = $4 AND expires_us > $1`, used.UnixMicro(), until.UnixMicro(), caller, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return viewstore.ErrNotFound
	}
	return nil
}

// CloseView implements viewstore.Store.
func (s *Store) CloseView(ctx context.Context, caller, id string, now time.Time) (bool, error) {
	var expires int64
	err := s.pool.QueryRow(ctx, `DELETE FROM bin_view WHERE caller = $1 AND id = $2 RETURNING expires_us`, caller, id).Scan(&expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return expires > now.UnixMicro(), nil
}

// ChargeUpload implements viewstore.Store.
func (s *Store) ChargeUpload(ctx context.Context, credential, day string, n, limit int64) (int64, error) {
	var used int64
	err := s.pool.QueryRow(ctx, `INSERT INTO bin_upload AS u (credential, day, bytes) SELECT $1, $2, $3::bigint WHERE $3::bigint <= $4::bigint
		ON CONFLICT (credential, day) DO UPDATE SET bytes = u.bytes + excluded.bytes WHERE u.bytes + excluded.bytes <= $4::bigint
		RETURNING u.bytes`, credential, day, n, limit).Scan(&used)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, viewstore.ErrQuotaExceeded
	}
	return used, err
}

// pruneViews deletes expired binary-view rows at now (µs): views, grants,
// earlier days' upload counts, and expired blobs and analyses that no
// live view needs.
func pruneViews(ctx context.Context, tx pgx.Tx, now int64, day string) error {
	for _, q := range []string{
		`DELETE FROM bin_view WHERE expires_us <= $1`,
		`DELETE FROM bin_access WHERE expires_us <= $1`,
		`DELETE FROM bin_blob b WHERE expires_us <= $1 AND NOT EXISTS
			(SELECT 1 FROM bin_view v WHERE v.sha256 = b.sha256 AND v.expires_us > $1)`,
		`DELETE FROM bin_analysis a WHERE expires_us <= $1 AND NOT EXISTS
			(SELECT 1 FROM bin_view v WHERE v.sha256 = a.sha256 AND v.expires_us > $1)`,
	} {
		if _, err := tx.Exec(ctx, q, now); err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, `DELETE FROM bin_upload WHERE day < $1`, day)
	return err
}
