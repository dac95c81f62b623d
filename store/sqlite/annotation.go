package sqlite

import (
	"context"
	"database/sql"
	"github.com/warden-mcp/warden/store/internal/sqlshare"

	"github.com/warden-mcp/warden/annotation"
)

var _ annotation.Store = (*Store)(nil)

// AppendAnnotation implements annotation.Store. The immediate
// transaction holds the database's write lock, so the file's next seq is
// taken and used by one writer at a time, across processes too.
func (s *Store) AppendAnnotation(ctx context.Context, e annotation.Entry, max int) (annotation.Entry, error) {
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		var last int64
		if err := tx.QueryRowContext(ctx, sqlshare.AnnotationLastSeq,
			e.Tenant, e.SHA256).Scan(&last); err != nil {
			return false, err
		}
		if last >= int64(max) {
			return false, annotation.ErrLimit()
		}
		e.Seq = last + 1
		_, err := tx.ExecContext(ctx, sqlshare.InsertAnnotation, sqlshare.AnnotationArgs(e)...)
		return err == nil, err
	})
	if err != nil {
		return annotation.Entry{}, err
	}
	return e, nil
}

// AnnotationLog implements annotation.Store.
func (s *Store) AnnotationLog(ctx context.Context, f annotation.File, after int64, limit int) ([]annotation.Entry, error) {
	rows, err := s.ro.QueryContext(ctx, sqlshare.AnnotationLog, f.Tenant, f.SHA256, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshare.Collect(rows, func(sc sqlshare.Scanner) (annotation.Entry, error) { return sqlshare.ScanAnnotation(f, sc) })
}

// LatestAnnotation implements annotation.Store.
func (s *Store) LatestAnnotation(ctx context.Context, f annotation.File, kind annotation.Kind, offset uint64) (annotation.Entry, bool, error) {
	row := s.ro.QueryRowContext(ctx, sqlshare.LatestAnnotation,
		f.Tenant, f.SHA256, string(kind), int64(offset))
	e, err := sqlshare.ScanAnnotation(f, row)
	if err == sql.ErrNoRows {
		return annotation.Entry{}, false, nil
	}
	if err != nil {
		return annotation.Entry{}, false, err
	}
	return e, true, nil
}
