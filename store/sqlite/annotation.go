package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/warden-mcp/warden/annotation"
)

var _ annotation.Store = (*Store)(nil)

// AppendAnnotation implements annotation.Store. The immediate
// transaction holds the database's write lock, so the file's next seq is
// taken and used by one writer at a time, across processes too.
func (s *Store) AppendAnnotation(ctx context.Context, e annotation.Entry, max int) (annotation.Entry, error) {
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		var last int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM annotation_log WHERE tenant = ? AND sha256 = ?`,
			e.Tenant, e.SHA256).Scan(&last); err != nil {
			return false, err
		}
		if last >= int64(max) {
			return false, annotation.ErrLimit()
		}
		e.Seq = last + 1
		_, err := tx.ExecContext(ctx, `INSERT INTO annotation_log (tenant, sha256, seq, kind, rel_addr, text, author, at_us, deleted)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Tenant, e.SHA256, e.Seq, string(e.Kind), int64(e.Offset), e.Text, e.Author, e.Time.UnixMicro(), e.Deleted)
		return err == nil, err
	})
	if err != nil {
		return annotation.Entry{}, err
	}
	return e, nil
}

const annotationCols = `seq, kind, rel_addr, text, author, at_us, deleted`

func scanAnnotation(f annotation.File, sc interface{ Scan(...any) error }) (annotation.Entry, error) {
	e := annotation.Entry{File: f}
	var kind string
	var off, at int64
	if err := sc.Scan(&e.Seq, &kind, &off, &e.Text, &e.Author, &at, &e.Deleted); err != nil {
		return annotation.Entry{}, err
	}
	e.Kind, e.Offset, e.Time = annotation.Kind(kind), uint64(off), time.UnixMicro(at).UTC()
	return e, nil
}

// AnnotationLog implements annotation.Store.
func (s *Store) AnnotationLog(ctx context.Context, f annotation.File, after int64, limit int) ([]annotation.Entry, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT `+annotationCols+` FROM annotation_log
		WHERE tenant = ? AND sha256 = ? AND seq > ? ORDER BY seq LIMIT ?`, f.Tenant, f.SHA256, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []annotation.Entry
	for rows.Next() {
		e, err := scanAnnotation(f, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// LatestAnnotation implements annotation.Store.
func (s *Store) LatestAnnotation(ctx context.Context, f annotation.File, kind annotation.Kind, offset uint64) (annotation.Entry, bool, error) {
	row := s.ro.QueryRowContext(ctx, `SELECT `+annotationCols+` FROM annotation_log
		WHERE tenant = ? AND sha256 = ? AND kind = ? AND rel_addr = ? ORDER BY seq DESC LIMIT 1`,
		f.Tenant, f.SHA256, string(kind), int64(offset))
	e, err := scanAnnotation(f, row)
	if err == sql.ErrNoRows {
		return annotation.Entry{}, false, nil
	}
	if err != nil {
		return annotation.Entry{}, false, err
	}
	return e, true, nil
}
