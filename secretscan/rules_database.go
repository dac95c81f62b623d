// Code written by hand as data; one family per file.

package secretscan

// databaseRules: database and service URLs or connection strings with an embedded password.
var databaseRules = []*rule{
	{
		ID: "postgres-url", Type: "postgresql_connection_url", Name: "PostgreSQL URL with password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"postgres"},
		Pattern: "\\bpostgres(?:ql)?(?:\\+\\w+)?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w.\\[\\]%-]{1,253}",
		Before: 8,
		After: 600,
		Priority: 1,
		Examples: []string{
			`postgres://app_user:tJ7kYDqKdqIS9vei@db.internal:5432/app`,
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
		Pattern: "\\b(?:mysql|mariadb)(?:\\+\\w+)?(?:x)?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w.\\[\\]%-]{1,253}",
		Before: 8,
		After: 600,
		Priority: 1,
		Examples: []string{
			`mysql://app_user:2rFf18XkKpuG6C84@db.internal:5432/app`,
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
		Pattern: "\\bmongodb(?:\\+srv)?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w.\\[\\]%-]{1,253}",
		Before: 8,
		After: 600,
		Priority: 1,
		Examples: []string{
			`mongodb://app_user:LYimMmA42h6nv5Hs@db.internal:5432/app`,
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
		Pattern: "\\brediss?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w.\\[\\]%-]{1,253}",
		Before: 8,
		After: 600,
		Priority: 1,
		Examples: []string{
			`redis://app_user:7K3iOiUGkaaATTST@db.internal:5432/app`,
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
		Pattern: "\\bamqps?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w.\\[\\]%-]{1,253}",
		Before: 8,
		After: 600,
		Priority: 1,
		Examples: []string{
			`amqp://app_user:KmBP3oEcx4ckhkFF@db.internal:5432/app`,
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
		Pattern: "\\b(?:mssql|sqlserver)(?:\\+\\w+)?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w.\\[\\]%-]{1,253}",
		Before: 8,
		After: 600,
		Priority: 1,
		Examples: []string{
			`mssql://app_user:itJhEk5iZ0PrpcQD@db.internal:5432/app`,
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
		Pattern: "\\bldaps?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w.\\[\\]%-]{1,253}",
		Before: 8,
		After: 600,
		Priority: 1,
		Examples: []string{
			`ldap://app_user:09LxsGSut20rT3QB@db.internal:5432/app`,
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
		Pattern: "\\bs?ftps?://(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w.\\[\\]%-]{1,253}",
		Before: 8,
		After: 600,
		Priority: 1,
		Examples: []string{
			`ftp://app_user:jdk6TmrJ2am02BMs@db.internal:5432/app`,
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
		Pattern: `(?i)jdbc:[a-z0-9]{2,20}:[^\s"\'<>]{0,300}?[?;&:](?:password|pwd)=(?P<secret>[^;&\s"\'<>]{1,128})`,
		After: 500,
		Priority: 1,
		Examples: []string{
			`jdbc:sqlserver://db.internal:1433;databaseName=app;user=svc;password=hggskNJdo689kY`,
			`jdbc:mysql://db/app?user=svc&password=Va0tfh9zSuGdGx&useSSL=true`,
		},
	},
	{
		ID: "jdbc-url-userinfo", Type: "jdbc_connection_string", Name: "JDBC URL with user:password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"jdbc:"},
		Pattern: "jdbc:[a-z0-9]{2,20}:(?:[a-z0-9]{2,20}:)?//(?P<user>[^:/\\s@\\'\"<>`]{0,128}):(?P<secret>[^@/\\s\\'\"<>`]{1,256})@[\\w.\\[\\]%-]{1,253}",
		After: 500,
		Priority: 1,
		Examples: []string{
			`jdbc:postgresql://svc:it2Q4iJTUCSdY5@db.internal:5432/app`,
		},
	},
	{
		ID: "ado-net-connection-string", Type: "database_connection_string", Name: "ADO.NET / ODBC connection string with password",
		Family: "database", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"password=", "pwd="},
		Pattern: `(?i)(?:server|data source|host|dsn|driver|database|initial catalog|uid|user id)\s*=[^\n"\'<>]{0,300}?;\s*(?:password|pwd)\s*=\s*(?P<secret>\{[^}\n]{1,128}\}|[^;"\'\n<>]{1,128})`,
		Before: 400,
		After: 140,
		Priority: 1,
		Examples: []string{
			`Server=tcp:db.internal,1433;Database=app;User ID=svc;Password=oAP98zhPUnDJ1T;Encrypt=true`,
			`Driver={ODBC Driver 17 for SQL Server};Server=db;UID=svc;PWD=8N8vvfE5pwtT;`,
		},
	},
	{
		ID: "url-with-credentials", Type: "url_with_credentials", Name: "URL with embedded username and password (basic auth)",
		Family: "database", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"://"},
		Pattern: "\\b(?:https?|git|ssh|svn|smb|ws|wss|nats|kafka|neo4j|neo4j\\+s|bolt|couchdb|cassandra|clickhouse|influxdb|elasticsearch|nntp|imaps?|pop3s?|smtps?|socks5h?|sip|rtsp|mqtts?|ssh\\+git)://(?P<user>[^:/\\s@\\'\"<>`]{1,128}):(?P<secret>[^@/\\s\\'\"<>`]{3,256})@[\\w\\[][\\w.\\[\\]%:-]{0,253}",
		Before: 20,
		After: 600,
		Examples: []string{
			`https://deploy:1HMRDCeTPnvW5DtOGJ@git.example.org/org/repo.git`,
			`git clone https://oauth2:dNBTxiQF9yWwVPFcQn0A@gitlab.internal/group/project.git`,
		},
		NegativeExamples: []string{
			`https://user:password@example.com/`,
			`https://username:${TOKEN}@host/`,
			`http://localhost:8080@foo`,
		},
	},
}
