// Package sqlshare is the SQL that the embedded SQLite store and the
// PostgreSQL store speak alike: statements, the filters that build a query
// from a domain's filter, and the scans that read a row back into the
// domain's types. Each store keeps what differs between them: its driver,
// its transactions and locks, and its dialect's functions.
//
// Statements are written with ? placeholders; Bind gives PostgreSQL's
// numbered form. None of them holds a ? inside a literal.
package sqlshare

import (
	"strconv"
	"strings"
	"time"
)

// Dialect is the SQL a store speaks.
type Dialect uint8

const (
	SQLite Dialect = iota
	Postgres
)

// Bind returns q with its placeholders in the dialect's form: ? for
// SQLite, $1, $2, ... for PostgreSQL.
func (d Dialect) Bind(q string) string {
	if d != Postgres || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] != '?' {
			b.WriteByte(q[i])
			continue
		}
		n++
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// contains is a case-insensitive substring test of column against the
// next argument.
func (d Dialect) contains(column string) string {
	if d == Postgres {
		return "strpos(lower(" + column + "), lower(?)) > 0"
	}
	return "instr(lower(" + column + "), lower(?)) > 0"
}

// Scanner is one row of either driver (*sql.Row, *sql.Rows, pgx.Row,
// pgx.Rows).
type Scanner interface{ Scan(dest ...any) error }

// Rows is a result set of either driver. The caller closes it.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// Collect reads every row of rows with scan.
func Collect[T any](rows Rows, scan func(Scanner) (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// where builds a WHERE clause: conditions with ? placeholders and their
// arguments, in order.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// clause is " WHERE a AND b", or "" without conditions.
func (w *where) clause() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// MicrosOrZero is t in microseconds since the epoch, 0 for the zero time.
func MicrosOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// FromMicros is the inverse of MicrosOrZero, in UTC.
func FromMicros(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}
