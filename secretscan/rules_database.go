// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

import (
	"cmp"
	"fmt"
	"strings"
)

// databaseRules: database and service URLs or connection strings with an embedded password.
var databaseRules = []*rule{
	urlCredentialRule(urlCredential{
		id: "postgres-url", typ: "postgresql_connection_url", name: "PostgreSQL URL with password",
		severity: SeverityCritical, keywords: []string{"postgres"},
		scheme:  `\bpostgres(?:ql)?(?:\+\w+)?:`,
		example: `postgres://app_user:AwrNwHFMeZzmnDgK@db.internal:5432/app`,
	}),
	urlCredentialRule(urlCredential{
		id: "mysql-url", typ: "mysql_connection_url", name: "MySQL / MariaDB URL with password",
		severity: SeverityCritical, keywords: []string{"mysql", "mariadb"},
		scheme:  `\b(?:mysql|mariadb)(?:\+\w+)?(?:x)?:`,
		example: `mysql://app_user:lVdei0Pq4n8avRrP@db.internal:5432/app`,
	}),
	urlCredentialRule(urlCredential{
		id: "mongodb-url", typ: "mongodb_connection_url", name: "MongoDB URI with password",
		severity: SeverityCritical, keywords: []string{"mongodb"},
		scheme:  `\bmongodb(?:\+srv)?:`,
		example: `mongodb://app_user:gE3SIeSsFUYFKbzW@db.internal:5432/app`,
	}),
	urlCredentialRule(urlCredential{
		id: "redis-url", typ: "redis_connection_url", name: "Redis URL with password",
		severity: SeverityCritical, keywords: []string{"redis"},
		scheme:  `\brediss?:`,
		example: `redis://app_user:m9MYRqADQ3hgBgTm@db.internal:5432/app`,
	}),
	urlCredentialRule(urlCredential{
		id: "amqp-url", typ: "amqp_connection_url", name: "AMQP (RabbitMQ) URL with password",
		severity: SeverityCritical, keywords: []string{"amqp"},
		scheme:  `\bamqps?:`,
		example: `amqp://app_user:vNuL6umHEEVkF4Vh@db.internal:5432/app`,
	}),
	urlCredentialRule(urlCredential{
		id: "mssql-url", typ: "mssql_connection_url", name: "SQL Server URL with password",
		severity: SeverityCritical, keywords: []string{"mssql", "sqlserver"},
		scheme:  `\b(?:mssql|sqlserver)(?:\+\w+)?:`,
		example: `mssql://app_user:Mgygh0E8PvuvoK6Y@db.internal:5432/app`,
	}),
	urlCredentialRule(urlCredential{
		id: "ldap-url", typ: "ldap_url_with_credentials", name: "LDAP URL with credentials",
		severity: SeverityHigh, keywords: []string{"ldap"},
		scheme:  `\bldaps?:`,
		example: `ldap://app_user:BIMWewTQVDQ8tYp2@db.internal:5432/app`,
	}),
	urlCredentialRule(urlCredential{
		id: "ftp-url", typ: "ftp_url_with_credentials", name: "FTP URL with credentials",
		severity: SeverityHigh, keywords: []string{"ftp"},
		scheme:  `\bs?ftps?:`,
		example: `ftp://app_user:dgCt2zOHe1CXUgsf@db.internal:5432/app`,
	}),
	{
		ID: "jdbc-url-password", Type: "jdbc_connection_string", Name: "JDBC URL with password parameter",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"jdbc:"},
		Pattern:  `(?i)jdbc:[a-z0-9]{2,20}:[^\s"\'<>]{0,300}?[?;&:](?:password|pwd)=(?P<secret>[^;&\s"\'<>]{1,128})`,
		After:    500,
		Priority: 1,
		Examples: []string{
			`jdbc:sqlserver://db.internal:1433;databaseName=app;user=svc;password=9qHkPorenLZPBs`,
			`jdbc:mysql://db/app?user=svc&password=Z6B1OtZpbb2gsF&useSSL=true`,
		},
	},
	urlCredentialRule(urlCredential{
		id: "jdbc-url-userinfo", typ: "jdbc_connection_string", name: "JDBC URL with user:password",
		severity: SeverityCritical, keywords: []string{"jdbc:"},
		scheme:  `jdbc:[a-z0-9]{2,20}:(?:[a-z0-9]{2,20}:)?`,
		example: `jdbc:postgresql://svc:i6iPCZwRIrlRnC@db.internal:5432/app`,
		// Up to 42 bytes of sub-protocol may stand between the keyword and
		// "//" (jdbc:sub:subname://), past the 24 userinfoAhead looks at.
		noPrefilter: true,
		after:       500,
	}),
	{
		ID: "ado-net-connection-string", Type: "database_connection_string", Name: "ADO.NET / ODBC connection string with password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"password=", "pwd="},
		Pattern:  `(?i)(?:server|data source|host|dsn|driver|database|initial catalog|uid|user id)\s*=[^\n"\'<>]{0,300}?;\s*(?:password|pwd)\s*=\s*(?P<secret>\{[^}\n]{1,128}\}|[^;"\'\n<>]{1,128})`,
		Before:   400,
		After:    140,
		Priority: 1,
		Pre:      semicolonBefore,
		Examples: []string{
			`Server=tcp:db.internal,1433;Database=app;User ID=svc;Password=Zy5lYGuGnMBKLa;Encrypt=true`,
			`Driver={ODBC Driver 17 for SQL Server};Server=db;UID=svc;PWD=YI1bKFsCiomV;`,
		},
	},
	urlCredentialRule(urlCredential{
		id: "url-with-credentials", typ: "url_with_credentials", name: "URL with embedded username and password (basic auth)",
		severity: SeverityHigh, keywords: []string{"://"},
		scheme:    `\b(?:https?|git|ssh|svn|smb|ws|wss|nats|kafka|neo4j|neo4j\+s|bolt|couchdb|cassandra|clickhouse|influxdb|elasticsearch|nntp|imaps?|pop3s?|smtps?|socks5h?|sip|rtsp|mqtts?|ssh\+git):`,
		example:   `https://deploy:3NG7pUdAHuiuaCX1Y4@git.example.org/org/repo.git`,
		examples:  []string{`git clone https://oauth2:sOyhus4lfvIFkAumqRTx@gitlab.internal/group/project.git`},
		negatives: []string{`https://user:password@example.com/`, `https://username:${TOKEN}@host/`, `http://localhost:8080@foo`},
		// Any scheme: the user is required (no "https://:x@"), the
		// keyword is "://" itself, and the scheme rules above rank first.
		userRequired: true,
		before:       20,
		minLen:       3,
		anyScheme:    true,
	}),
}

// userinfoPattern follows a URL rule's scheme and its colon:
// "//user:password@host".
// %s is the user's quantifier. The password stops at the first '/', '?',
// '#', blank, quote or angle bracket; the host may be a bracketed IPv6
// address or hold percent escapes.
const userinfoPattern = "//(?P<user>[^:/\\s@\\'\"<>`]%s):(?P<secret>[^/?#\\s\\'\"<>`]+)@[\\w\\[%%][\\w.\\[\\]%%:-]*"

// urlCredential is a URL scheme whose user-info may carry a password
// (scheme://user:password@host). urlCredentialRule makes its rule; the
// fields after example are zero for a database scheme.
type urlCredential struct {
	id, typ, name string
	severity      Severity
	keywords      []string
	scheme        string // RE2 for the scheme and its colon, before "//"
	// example is a URL the rule must find. The negative examples are made
	// from its scheme: a placeholder password, a ${VAR} and a mask.
	example   string
	examples  []string // more URLs the rule must find
	negatives []string // more texts it must not

	userRequired  bool // "scheme://:password@" does not count
	before, after int  // window around a keyword hit; zero: 8 and 600 bytes
	minLen        int  // shortest password; zero: any
	anyScheme     bool // the catch-all rule: it ranks below the scheme rules
	noPrefilter   bool // the keyword may stand too far before "://" for userinfoAhead
}

// urlCredentialRule makes the rule of a URL scheme with a password in its
// user-info. The user is captured so that the scanner can drop a password
// that repeats it or is a port ("http://localhost:8080@x").
func urlCredentialRule(u urlCredential) *rule {
	user := "*"
	if u.userRequired {
		user = "+"
	}
	r := &rule{
		ID: u.id, Type: u.typ, Name: u.name, Family: "database", Severity: u.severity, Evidence: evStructure,
		Keywords: u.keywords,
		Pattern:  u.scheme + fmt.Sprintf(userinfoPattern, user),
		Before:   cmp.Or(u.before, 8),
		After:    cmp.Or(u.after, 600),
		Priority: 1,
		Pre:      userinfoAhead,
		MinLen:   u.minLen,
		MaxLen:   256,
		Examples: append([]string{u.example}, u.examples...),
	}
	if u.anyScheme {
		r.Priority = 0
	}
	if u.noPrefilter {
		r.Pre = nil
	}
	scheme, _, _ := strings.Cut(u.example, "://")
	r.NegativeExamples = append([]string{
		scheme + "://user:password@localhost/db",
		scheme + "://app:${DB_PASSWORD}@db/app",
		scheme + "://app:****@db/app",
	}, u.negatives...)
	return r
}
