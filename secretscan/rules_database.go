// Code written by hand as data; one family per file.

package secretscan

// databaseRules: database and service URLs or connection strings with an embedded password.
var databaseRules = []*rule{
	{
		ID: "postgres-url", Type: "postgresql_connection_url", Name: "PostgreSQL URL with password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"postgres"},
		Pattern:  "\\bpostgres(?:ql)?(?:\\+\\w+)?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w\\[][\\w.\\[\\]%:-]{0,253}",
		Before:   8,
		After:    600,
		Priority: 1,
		Examples: []string{
			`postgres://app_user:sn35AtHLWqDxfh81@db.internal:5432/app`,
		},
		NegativeExamples: []string{
			`postgres://user:password@localhost/db`,
			`postgres://app:${DB_PASSWORD}@db/app`,
			`postgres://app:****@db/app`,
		},
	},
	{
		ID: "mysql-url", Type: "mysql_connection_url", Name: "MySQL / MariaDB URL with password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"mysql", "mariadb"},
		Pattern:  "\\b(?:mysql|mariadb)(?:\\+\\w+)?(?:x)?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w\\[][\\w.\\[\\]%:-]{0,253}",
		Before:   8,
		After:    600,
		Priority: 1,
		Examples: []string{
			`mysql://app_user:WCeQeen2bzgMudok@db.internal:5432/app`,
		},
		NegativeExamples: []string{
			`mysql://user:password@localhost/db`,
			`mysql://app:${DB_PASSWORD}@db/app`,
			`mysql://app:****@db/app`,
		},
	},
	{
		ID: "mongodb-url", Type: "mongodb_connection_url", Name: "MongoDB URI with password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"mongodb"},
		Pattern:  "\\bmongodb(?:\\+srv)?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w\\[][\\w.\\[\\]%:-]{0,253}",
		Before:   8,
		After:    600,
		Priority: 1,
		Examples: []string{
			`mongodb://app_user:PcJVdgVmU4qQhIB5@db.internal:5432/app`,
		},
		NegativeExamples: []string{
			`mongodb://user:password@localhost/db`,
			`mongodb://app:${DB_PASSWORD}@db/app`,
			`mongodb://app:****@db/app`,
		},
	},
	{
		ID: "redis-url", Type: "redis_connection_url", Name: "Redis URL with password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"redis"},
		Pattern:  "\\brediss?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w\\[][\\w.\\[\\]%:-]{0,253}",
		Before:   8,
		After:    600,
		Priority: 1,
		Examples: []string{
			`redis://app_user:oFZPz09DqsOLte7U@db.internal:5432/app`,
		},
		NegativeExamples: []string{
			`redis://user:password@localhost/db`,
			`redis://app:${DB_PASSWORD}@db/app`,
			`redis://app:****@db/app`,
		},
	},
	{
		ID: "amqp-url", Type: "amqp_connection_url", Name: "AMQP (RabbitMQ) URL with password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"amqp"},
		Pattern:  "\\bamqps?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w\\[][\\w.\\[\\]%:-]{0,253}",
		Before:   8,
		After:    600,
		Priority: 1,
		Examples: []string{
			`amqp://app_user:K32ui3OIShaSrjo9@db.internal:5432/app`,
		},
		NegativeExamples: []string{
			`amqp://user:password@localhost/db`,
			`amqp://app:${DB_PASSWORD}@db/app`,
			`amqp://app:****@db/app`,
		},
	},
	{
		ID: "mssql-url", Type: "mssql_connection_url", Name: "SQL Server URL with password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"mssql", "sqlserver"},
		Pattern:  "\\b(?:mssql|sqlserver)(?:\\+\\w+)?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w\\[][\\w.\\[\\]%:-]{0,253}",
		Before:   8,
		After:    600,
		Priority: 1,
		Examples: []string{
			`mssql://app_user:dD2l8Bb664IPO3NG@db.internal:5432/app`,
		},
		NegativeExamples: []string{
			`mssql://user:password@localhost/db`,
			`mssql://app:${DB_PASSWORD}@db/app`,
			`mssql://app:****@db/app`,
		},
	},
	{
		ID: "ldap-url", Type: "ldap_url_with_credentials", Name: "LDAP URL with credentials",
		Family: "database", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"ldap"},
		Pattern:  "\\bldaps?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w\\[][\\w.\\[\\]%:-]{0,253}",
		Before:   8,
		After:    600,
		Priority: 1,
		Examples: []string{
			`ldap://app_user:USzj5MI4XpW5lNuo@db.internal:5432/app`,
		},
		NegativeExamples: []string{
			`ldap://user:password@localhost/db`,
			`ldap://app:${DB_PASSWORD}@db/app`,
			`ldap://app:****@db/app`,
		},
	},
	{
		ID: "ftp-url", Type: "ftp_url_with_credentials", Name: "FTP URL with credentials",
		Family: "database", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"ftp"},
		Pattern:  "\\bs?ftps?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w\\[][\\w.\\[\\]%:-]{0,253}",
		Before:   8,
		After:    600,
		Priority: 1,
		Examples: []string{
			`ftp://app_user:tYm5tWzmR8AedWD5@db.internal:5432/app`,
		},
		NegativeExamples: []string{
			`ftp://user:password@localhost/db`,
			`ftp://app:${DB_PASSWORD}@db/app`,
			`ftp://app:****@db/app`,
		},
	},
	{
		ID: "jdbc-url-password", Type: "jdbc_connection_string", Name: "JDBC URL with password parameter",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"jdbc:"},
		Pattern:  `(?i)jdbc:[a-z0-9]{2,20}:[^\s"\'<>]{0,300}?[?;&:](?:password|pwd)=(?P<secret>[^;&\s"\'<>]{1,128})`,
		After:    500,
		Priority: 1,
		Examples: []string{
			`jdbc:sqlserver://db.internal:1433;databaseName=app;user=svc;password=SonIeeW8YybRCO`,
			`jdbc:mysql://db/app?user=svc&password=QkvKsjG5JIFaOO&useSSL=true`,
		},
	},
	{
		ID: "jdbc-url-userinfo", Type: "jdbc_connection_string", Name: "JDBC URL with user:password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"jdbc:"},
		Pattern:  "jdbc:[a-z0-9]{2,20}:(?:[a-z0-9]{2,20}:)?//(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w\\[][\\w.\\[\\]%:-]{0,253}",
		After:    500,
		Priority: 1,
		Examples: []string{
			`jdbc:postgresql://svc:ksIV1t6TgaeA6A@db.internal:5432/app`,
		},
	},
	{
		ID: "ado-net-connection-string", Type: "database_connection_string", Name: "ADO.NET / ODBC connection string with password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"password=", "pwd="},
		Pattern:  `(?i)(?:server|data source|host|dsn|driver|database|initial catalog|uid|user id)\s*=[^\n"\'<>]{0,300}?;\s*(?:password|pwd)\s*=\s*(?P<secret>\{[^}\n]{1,128}\}|[^;"\'\n<>]{1,128})`,
		Before:   400,
		After:    140,
		Priority: 1,
		Examples: []string{
			`Server=tcp:db.internal,1433;Database=app;User ID=svc;Password=wrNwHFMeZzmnDg;Encrypt=true`,
			`Driver={ODBC Driver 17 for SQL Server};Server=db;UID=svc;PWD=KlVdei0Pq4n8;`,
		},
	},
	{
		ID: "url-with-credentials", Type: "url_with_credentials", Name: "URL with embedded username and password (basic auth)",
		Family: "database", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"://"},
		Pattern:  "\\b(?:https?|git|ssh|svn|smb|ws|wss|nats|kafka|neo4j|neo4j\\+s|bolt|couchdb|cassandra|clickhouse|influxdb|elasticsearch|nntp|imaps?|pop3s?|smtps?|socks5h?|sip|rtsp|mqtts?|ssh\\+git)://(?P<user>[^:/\\s@\\'\"<>`]{1,128}):(?P<secret>[^@/\\s\\'\"<>`]{3,256})@[\\w\\[][\\w.\\[\\]%:-]{0,253}",
		Before:   20,
		After:    600,
		Examples: []string{
			`https://deploy:avRrPgE3SIeSsFUYFK@git.example.org/org/repo.git`,
			`git clone https://oauth2:bzWm9MYRqADQ3hgBgTmv@gitlab.internal/group/project.git`,
		},
		NegativeExamples: []string{
			`https://user:password@example.com/`,
			`https://username:${TOKEN}@host/`,
			`http://localhost:8080@foo`,
		},
	},
}
