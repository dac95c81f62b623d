package postgres

import (
	"context"
	"errors"
	"hash/fnv"
	"time"

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
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM annotation_log WHERE tenant = $1 AND sha256 = $2`,
			e.Tenant, e.SHA256).Scan(&last); err != nil {
			return err
		}
		if last >= int64(max) {
			return annotation.ErrLimit()
		}
		e.Seq = last + 1
		_, err := tx.Exec(ctx, `INSERT INTO annotation_log (tenant, sha256, seq, kind, rel_addr, text, author, at_us, deleted)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			e.Tenant, e.SHA256, e.Seq, string(e.Kind), int64(e.Offset), e.Text, e.Author, e.Time.UnixMicro(), e.Deleted)
		return err
	})
	if err != nil {
		return annotation.Entry{}, err
	}
	return e, nil
}

const annotationCols = `seq, kind, rel_addr, text, author, at_us, deleted`

func scanAnnotation(f annotation.File, row pgx.Row) (annotation.Entry, error) {
	e := annotation.Entry{File: f}
	var kind string
	var off, at int64
	if err := row.Scan(&e.Seq, &kind, &off, &e.Text, &e.Author, &at, &e.Deleted); err != nil {
		return annotation.Entry{}, err
	}
	e.Kind, e.Offset, e.Time = annotation.Kind(kind), uint64(off), time.UnixMicro(at).UTC()
	return e, nil
}

// AnnotationLog implements annotation.Store.
func (s *Store) AnnotationLog(ctx context.Context, f annotation.File, after int64, limit int) ([]annotation.Entry, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+annotationCols+` FROM annotation_log
		WHERE tenant = $1 AND sha256 = $2 AND seq > $3 ORDER BY seq LIMIT $4`, f.Tenant, f.SHA256, after, limit)
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
	row := s.pool.QueryRow(ctx, `SELECT `+annotationCols+` FROM annotation_log
		WHERE tenant = $1 AND sha256 = $2 AND kind = $3 AND rel_addr = $4 ORDER BY seq DESC LIMIT 1`,
		f.Tenant, f.SHA256, string(kind), int64(offset))
	e, err := scanAnnotation(f, row)
	if errors.Is(err, pgx.ErrNoRows) {
		return annotation.Entry{}, false, nil
	}
	if err != nil {
		return annotation.Entry{}, false, err
	}
	return e, true, nil
}
