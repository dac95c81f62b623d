package postgres

import "github.com/warden-mcp/warden/store/internal/sqlshare"

// The statements both stores share (package sqlshare), in PostgreSQL's
// numbered placeholders, bound once.
var (
	qInsertFinding     = sqlshare.Postgres.Bind(sqlshare.InsertFinding)
	qInsertCredential  = sqlshare.Postgres.Bind(sqlshare.InsertCredential)
	qCredentialByID    = sqlshare.Postgres.Bind(sqlshare.CredentialByID)
	qCredentialByJWT   = sqlshare.Postgres.Bind(sqlshare.CredentialByJWT)
	qListCredentials   = sqlshare.Postgres.Bind(sqlshare.ListCredentials)
	qRevokeCredential  = sqlshare.Postgres.Bind(sqlshare.RevokeCredential)
	qAnnotationLastSeq = sqlshare.Postgres.Bind(sqlshare.AnnotationLastSeq)
	qInsertAnnotation  = sqlshare.Postgres.Bind(sqlshare.InsertAnnotation)
	qAnnotationLog     = sqlshare.Postgres.Bind(sqlshare.AnnotationLog)
	qLatestAnnotation  = sqlshare.Postgres.Bind(sqlshare.LatestAnnotation)
	qMessages          = sqlshare.Postgres.Bind(sqlshare.Messages)
)
