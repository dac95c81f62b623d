package postgres

import (
	"context"
	"errors"
	"github.com/warden-mcp/warden/store/internal/sqlshare"
	"hash/fnv"

	"github.com/jackc/pgx/v5"
	"github.com/warden-mcp/warden/annotation"
)

var _ annotation.Store = (*Store)(nil)

// annotationLock is the advisory lock of one file's log: appends to the
// file take it for their transaction, so seq is dense and entries commit
// in seq order (a reader that saw seq n has seen every entry before it).
func (s *Store) annotationLock(f annotation.File) int64 {
	h := fnv.New64a()
	h.Write([]byte("warden:" + s.schema + ":annotation:"))
	h.Write([]byte(f.Tenant))
	h.Write([]byte{0})
	h.Write([]byte(f.SHA256))
	return int64(h.Sum64())
}

// AppendAnnotation implements annotation.Store.
func (s *Store) AppendAnnotation(ctx context.Context, e annotation.Entry, max int) (annotation.Entry, error) {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, s.annotationLock(e.File)); err != nil {
			return err
		}
		var last int64
		if err := tx.QueryRow(ctx, qAnnotationLastSeq,
			e.Tenant, e.SHA256).Scan(&last); err != nil {
			return err
		}
		if last >= int64(max) {
			return annotation.ErrLimit()
		}
		e.Seq = last + 1
		_, err := tx.Exec(ctx, qInsertAnnotation, sqlshare.AnnotationArgs(e)...)
		return err
	})
	if err != nil {
		return annotation.Entry{}, err
	}
	return e, nil
}

// AnnotationLog implements annotation.Store.
func (s *Store) AnnotationLog(ctx context.Context, f annotation.File, after int64, limit int) ([]annotation.Entry, error) {
	rows, err := s.pool.Query(ctx, qAnnotationLog, f.Tenant, f.SHA256, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshare.Collect(rows, func(sc sqlshare.Scanner) (annotation.Entry, error) { return sqlshare.ScanAnnotation(f, sc) })
}

// LatestAnnotation implements annotation.Store.
func (s *Store) LatestAnnotation(ctx context.Context, f annotation.File, kind annotation.Kind, offset uint64) (annotation.Entry, bool, error) {
	row := s.pool.QueryRow(ctx, qLatestAnnotation,
		f.Tenant, f.SHA256, string(kind), int64(offset))
	e, err := sqlshare.ScanAnnotation(f, row)
	if errors.Is(err, pgx.ErrNoRows) {
		return annotation.Entry{}, false, nil
	}
	if err != nil {
		return annotation.Entry{}, false, err
	}
	return e, true, nil
}
