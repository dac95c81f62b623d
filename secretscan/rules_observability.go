// Code written by hand as data; one family per file.

package secretscan

// observabilityRules: monitoring, logging and error tracking.
var observabilityRules = []*rule{
	{
		ID: "newrelic-user-key", Type: "newrelic_user_api_key", Name: "New Relic user API key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRAK-"},
		Pattern:  `\b(NRAK-[A-Z0-9]{27})`,
		Examples: []string{
			`TOKEN = "NRAK-6G8Z702RMAWVDFN26LZBGK1FDX6"`,
		},
	},
	{
		ID: "newrelic-insert-key", Type: "newrelic_insert_key", Name: "New Relic insights insert key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRII-"},
		Pattern:  `\b(NRII-[A-Za-z0-9_-]{32})`,
		Examples: []string{
			`TOKEN = "NRII-S76N0xvMEfOWSFYwXkiY-tZ23bUhPIdh"`,
		},
	},
	{
		ID: "newrelic-browser-key", Type: "newrelic_browser_api_key", Name: "New Relic browser API key",
		Family: "observability", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"NRJS-"},
		Pattern:  `\b(NRJS-[a-f0-9]{19})`,
		Examples: []string{
			`TOKEN = "NRJS-b711d92475976601ff3"`,
		},
	},
	{
		ID: "newrelic-admin-key", Type: "newrelic_admin_api_key", Name: "New Relic admin API key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRAA-"},
		Pattern:  `\b(NRAA-[a-f0-9]{27})`,
		Examples: []string{
			`TOKEN = "NRAA-795c6ad446407f8e8867784d6b5"`,
		},
	},
	{
		ID: "newrelic-license-key", Type: "newrelic_license_key", Name: "New Relic ingest license key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRAL"},
		Pattern:  `\b(?P<secret>[a-z0-9]{36}NRAL)\b`,
		Before:   40,
		Examples: []string{
			`license_key: 2273aacb5771cc00cd92962fe09580dd232eNRAL`,
		},
	},
	{
		ID: "sentry-org-token", Type: "sentry_org_token", Name: "Sentry organization auth token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"sntrys_"},
		Pattern:    `\b(sntrys_eyJ[A-Za-z0-9+/=_-]{80,400}(?:_[A-Za-z0-9+/]{43})?)`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "sntrys_eyJRrUMs2Y9NyzCnpn27Rke21XCgErIHZGBJjSCk2NRojj7L3hZHoJ23xN3EPC/7EzkJ+0HflRQlg5EgcyWujxOjNZDGGJqj3xeMZnYNe1IE8iLgd6+ZM6wqmIkhqCw0SIbdeH4CMFIMGB+qSjpL44vdD_OtlEMKI8UGHGR1bT6yQy533PF/S20fFsXF9/+K9rXtR"`,
		},
	},
	{
		ID: "sentry-user-token", Type: "sentry_user_token", Name: "Sentry user auth token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sntryu_"},
		Pattern:  `\b(sntryu_[a-f0-9]{64})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "grafana-cloud-token", Type: "grafana_cloud_token", Name: "Grafana Cloud API token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"glc_"},
		Pattern:    `\b(glc_[A-Za-z0-9+/]{32,400}={0,2})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "glc_j4EyNmp5heRff+wJ7nbbaqf8PsiPsp0VfonNQ422FP0NKmFp9/UuMZQWwPaybHeoDdPxmUfK0VHH3ExebmDiVJ5MRo/unWcIELMXch7pgP4iD+ksPnnE1p1D=="`,
		},
	},
	{
		ID: "grafana-service-account-token", Type: "grafana_service_account_token", Name: "Grafana service account token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glsa_"},
		Pattern:  `\b(glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8})`,
		Examples: []string{
			`TOKEN = "glsa_3tRjtci3Ff7WHsTTkk84RFuz1or1KjLy_99259c5e"`,
		},
	},
	{
		ID: "grafana-api-key", Type: "grafana_api_key", Name: "Grafana API key (legacy)",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"eyJrIjoi"},
		Pattern:    `\b(eyJrIjoi[A-Za-z0-9]{70,400}={0,2})`,
		MinEntropy: 4.0,
		Priority:   1,
		Examples: []string{
			`TOKEN = "eyJrIjoin4WkNQT5fnLJXw7gUuEAWf7Sse5V8ZFKzC2dqwSS43kKvVPdgSx6HnfeYPDHF9zfrvckNrIbNLMu0YKog7zIDOyNz1="`,
		},
	},
	{
		ID: "dynatrace-api-token", Type: "dynatrace_api_token", Name: "Dynatrace API token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dt0c01."},
		Pattern:  `\b(dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64})`,
		Examples: []string{
			`TOKEN = "dt0c01.U9PDWAHZCRGKTN2YSPEONUUX.PFYPUXOG89ASE0SK7CGLLZPZOF6J76DCU3ZPW0PY3Y7SMJEID3VIUZ91QFJL46IF"`,
		},
	},
	{
		ID: "posthog-personal-key", Type: "posthog_personal_api_key", Name: "PostHog personal API key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"phx_"},
		Pattern:    `\b(phx_[A-Za-z0-9]{43})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "phx_0JohWPEo8u3tQ8WG0FNSYruccOPYSNgki6Zefv95fBW"`,
		},
	},
	{
		ID: "sentry-dsn", Type: "sentry_dsn", Name: "Sentry DSN with secret key",
		Family: "observability", Severity: SeverityLow, Evidence: evStructure,
		Keywords: []string{"sentry.io"},
		Pattern:  `https://(?P<secret>[a-f0-9]{32})(?::[a-f0-9]{32})?@[\w.-]{0,40}\.?sentry\.io/\d+`,
		Before:   100,
		After:    40,
		Examples: []string{
			`SENTRY_DSN=https://08eaa42b2cea6a2d5b85741f1bd76693@o918038.ingest.sentry.io/9878911`,
		},
	},
}
