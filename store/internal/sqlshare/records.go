package sqlshare

import (
	"encoding/json"
	"time"

	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/credential"
	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/statestore"
)

// InsertFinding records one finding; FindingArgs are its arguments.
const InsertFinding = `INSERT INTO finding (tenant, id, created_us, credential, title, severity, severity_rank,
	target, evidence, source_tool, correlation_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// FindingArgs are InsertFinding's arguments for f.
func FindingArgs(f finding.Finding) []any {
	return []any{f.Tenant, f.ID, f.Created.UnixMicro(), f.Credential, f.Title, f.Severity, finding.Rank(f.Severity),
		f.Target, f.Evidence, f.SourceTool, f.CorrelationID}
}

// ListFindings is the query of a tenant's findings that pass f, newest
// first, from f.After on, at most f.Limit; ScanFinding reads its rows.
func (d Dialect) ListFindings(f finding.Filter) (string, []any) {
	var w where
	w.add("tenant = ?", f.Tenant)
	if f.MinSeverity != "" {
		w.add("severity_rank >= ?", finding.Rank(f.MinSeverity))
	}
	if f.Target != "" {
		w.add(d.contains("target"), f.Target)
	}
	if f.SourceTool != "" {
		w.add("source_tool = ?", f.SourceTool)
	}
	if !f.Since.IsZero() {
		w.add("created_us >= ?", f.Since.UnixMicro())
	}
	if !f.Until.IsZero() {
		w.add("created_us < ?", f.Until.UnixMicro())
	}
	if f.After.ID != "" {
		us := f.After.Created.UnixMicro()
		w.add("(created_us < ? OR created_us = ? AND id < ?)", us, us, f.After.ID)
	}
	q := `SELECT tenant, id, created_us, credential, title, severity, target, evidence, source_tool, correlation_id
		FROM finding` + w.clause() + ` ORDER BY created_us DESC, id DESC LIMIT ?`
	return d.Bind(q), append(w.args, f.Limit)
}

// ScanFinding reads a row of ListFindings.
func ScanFinding(sc Scanner) (finding.Finding, error) {
	var f finding.Finding
	var us int64
	if err := sc.Scan(&f.Tenant, &f.ID, &us, &f.Credential, &f.Title, &f.Severity, &f.Target, &f.Evidence, &f.SourceTool, &f.CorrelationID); err != nil {
		return finding.Finding{}, err
	}
	f.Created = time.UnixMicro(us).UTC()
	return f, nil
}

// AuditColumns are an audit record's columns, in the order of AuditArgs
// and ScanAudit.
const AuditColumns = `at_us, correlation_id, credential, tenant, tool, outcome, duration_us, quota_charged`

// AuditArgs appends r's values for AuditColumns to args.
func AuditArgs(args []any, r limits.AuditRecord) []any {
	return append(args, r.Time.UnixMicro(), r.CorrelationID, r.Credential, r.Tenant, r.Tool, r.Outcome,
		r.Duration.Microseconds(), r.QuotaCharged)
}

// QueryAudit is the query of the records that pass f, newest first, at
// most f.Limit; ScanAudit reads its rows.
func (d Dialect) QueryAudit(f limits.AuditFilter) (string, []any) {
	var w where
	if !f.Since.IsZero() {
		w.add("at_us >= ?", f.Since.UnixMicro())
	}
	if !f.Until.IsZero() {
		w.add("at_us < ?", f.Until.UnixMicro())
	}
	for _, c := range []struct{ col, v string }{
		{"credential", f.Credential}, {"tenant", f.Tenant}, {"tool", f.Tool}, {"outcome", f.Outcome},
	} {
		if c.v != "" {
			w.add(c.col+" = ?", c.v)
		}
	}
	q := `SELECT ` + AuditColumns + ` FROM audit_log` + w.clause() + ` ORDER BY at_us DESC, id DESC LIMIT ?`
	return d.Bind(q), append(w.args, f.Limit)
}

// ScanAudit reads a row of QueryAudit.
func ScanAudit(sc Scanner) (limits.AuditRecord, error) {
	var r limits.AuditRecord
	var at, dur int64
	if err := sc.Scan(&at, &r.CorrelationID, &r.Credential, &r.Tenant, &r.Tool, &r.Outcome, &dur, &r.QuotaCharged); err != nil {
		return limits.AuditRecord{}, err
	}
	r.Time = time.UnixMicro(at).UTC()
	r.Duration = time.Duration(dur) * time.Microsecond
	return r, nil
}

// CredentialColumns are a credential's columns, in ScanCredential's order.
const CredentialColumns = `id, kind, tenant, issuer, subject, key_hash, entitlements, label, created_us, expires_us, revoked_us`

// ScanCredential reads a row of CredentialColumns. The driver's own
// error for no row is returned as it is, for the store to name.
func ScanCredential(sc Scanner) (credential.Credential, error) {
	var c credential.Credential
	var ents string
	var created, expires, revoked int64
	if err := sc.Scan(&c.ID, &c.Kind, &c.Tenant, &c.Issuer, &c.Subject, &c.KeyHash, &ents, &c.Label, &created, &expires, &revoked); err != nil {
		return c, err
	}
	if err := json.Unmarshal([]byte(ents), &c.Entitlements); err != nil {
		return c, err
	}
	c.Created, c.Expires, c.Revoked = FromMicros(created), FromMicros(expires), FromMicros(revoked)
	if len(c.KeyHash) == 0 {
		c.KeyHash = nil
	}
	return c, nil
}

// AnnotationColumns are an annotation log entry's columns, in
// ScanAnnotation's order.
const AnnotationColumns = `seq, kind, rel_addr, text, author, at_us, deleted`

// ScanAnnotation reads a row of AnnotationColumns of file f's log.
func ScanAnnotation(f annotation.File, sc Scanner) (annotation.Entry, error) {
	e := annotation.Entry{File: f}
	var kind string
	var off, at int64
	if err := sc.Scan(&e.Seq, &kind, &off, &e.Text, &e.Author, &at, &e.Deleted); err != nil {
		return annotation.Entry{}, err
	}
	e.Kind, e.Offset, e.Time = annotation.Kind(kind), uint64(off), time.UnixMicro(at).UTC()
	return e, nil
}

// ScanMessage reads a state message's seq and data.
func ScanMessage(sc Scanner) (statestore.Message, error) {
	var m statestore.Message
	err := sc.Scan(&m.Seq, &m.Data)
	return m, err
}

// Credential statements.
const (
	InsertCredential = `INSERT INTO credential (` + CredentialColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	CredentialByID   = `SELECT ` + CredentialColumns + ` FROM credential WHERE id = ?`
	CredentialByJWT  = `SELECT ` + CredentialColumns + ` FROM credential
		WHERE kind = 'jwt' AND issuer = ? AND tenant = ? AND subject = ?`
	// ListCredentials takes tenant, tenant, kind, kind, limit (an empty
	// tenant or kind matches every one).
	ListCredentials = `SELECT ` + CredentialColumns + ` FROM credential
		WHERE (? = '' OR tenant = ?) AND (? = '' OR kind = ?) ORDER BY created_us, id LIMIT ?`
	RevokeCredential = `UPDATE credential SET revoked_us = ? WHERE id = ? AND revoked_us = 0`
)

// CredentialArgs are InsertCredential's arguments for c, its entitlements
// already encoded.
func CredentialArgs(c credential.Credential, ents []byte) []any {
	return []any{c.ID, c.Kind, c.Tenant, c.Issuer, c.Subject, c.KeyHash, string(ents), c.Label,
		c.Created.UnixMicro(), MicrosOrZero(c.Expires), MicrosOrZero(c.Revoked)}
}

// Annotation log statements.
const (
	// AnnotationLastSeq takes tenant, sha256.
	AnnotationLastSeq = `SELECT coalesce(max(seq), 0) FROM annotation_log WHERE tenant = ? AND sha256 = ?`
	InsertAnnotation  = `INSERT INTO annotation_log (tenant, sha256, seq, kind, rel_addr, text, author, at_us, deleted)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// AnnotationLog takes tenant, sha256, after, limit.
	AnnotationLog = `SELECT ` + AnnotationColumns + ` FROM annotation_log
		WHERE tenant = ? AND sha256 = ? AND seq > ? ORDER BY seq LIMIT ?`
	// LatestAnnotation takes tenant, sha256, kind, offset.
	LatestAnnotation = `SELECT ` + AnnotationColumns + ` FROM annotation_log
		WHERE tenant = ? AND sha256 = ? AND kind = ? AND rel_addr = ? ORDER BY seq DESC LIMIT 1`
)

// AnnotationArgs are InsertAnnotation's arguments for e.
func AnnotationArgs(e annotation.Entry) []any {
	return []any{e.Tenant, e.SHA256, e.Seq, string(e.Kind), int64(e.Offset), e.Text, e.Author, e.Time.UnixMicro(), e.Deleted}
}

// Messages takes channel, after, now (µs), limit; ScanMessage reads it.
const Messages = `SELECT seq, data FROM state_message WHERE channel = ? AND seq > ? AND expires_us >= ? ORDER BY seq LIMIT ?`
