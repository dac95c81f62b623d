// Code written by hand as data; one family per file.

package secretscan

// observabilityRules: monitoring, logging and error tracking.
var observabilityRules = []*rule{
	{
		ID: "newrelic-user-key", Type: "newrelic_user_api_key", Name: "New Relic user API key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRAK-"},
		Pattern: `\b(NRAK-[A-Z0-9]{27})`,
		Examples: []string{
			`TOKEN = "NRAK-RXLWNXQFL35CED6X6GW09QPG0XT"`,
		},
	},
	{
		ID: "newrelic-insert-key", Type: "newrelic_insert_key", Name: "New Relic insights insert key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRII-"},
		Pattern: `\b(NRII-[A-Za-z0-9_-]{32})`,
		Examples: []string{
			`TOKEN = "NRII-7UPRMR3sx5TBpdAQyZSAhOxyZ3XATuPF"`,
		},
	},
	{
		ID: "newrelic-browser-key", Type: "newrelic_browser_api_key", Name: "New Relic browser API key",
		Family: "observability", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"NRJS-"},
		Pattern: `\b(NRJS-[a-f0-9]{19})`,
		Examples: []string{
			`TOKEN = "NRJS-c31ecd5d778e59b351f"`,
		},
	},
	{
		ID: "newrelic-admin-key", Type: "newrelic_admin_api_key", Name: "New Relic admin API key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRAA-"},
		Pattern: `\b(NRAA-[a-f0-9]{27})`,
		Examples: []string{
			`TOKEN = "NRAA-767a7261d82b7e6bb21dcbd5dff"`,
		},
	},
	{
		ID: "newrelic-license-key", Type: "newrelic_license_key", Name: "New Relic ingest license key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRAL"},
		Pattern: `\b(?P<secret>[a-f0-9]{36}NRAL)\b`,
		Before: 40,
		Examples: []string{
			`license_key: 97b6745ec1591718428031c8a2341cc9be4dNRAL`,
		},
	},
	{
		ID: "sentry-org-token", Type: "sentry_org_token", Name: "Sentry organization auth token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sntrys_"},
		Pattern: `\b(sntrys_eyJ[A-Za-z0-9+/=_-]{80,400}(?:_[A-Za-z0-9+/]{43})?)`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "sntrys_eyJQiS/jk46QMZ9lvNzIYiwXWYRdkOSr0opsdCsSqFuBvPB9DNy3DpquZO0ig6AQuNo3CKtA7lS76N0xvMEfOWSFYwXkiY+tZ23bUhPIdhiT57sc9IVKdUQO25+zEVaMoRetJJOI0T/YwXZQVTYGqRiMB_BUEhholLVU7no30mtc8cO9+v2dKW2tqBCAvRrUMs2Y9"`,
		},
	},
	{
		ID: "sentry-user-token", Type: "sentry_user_token", Name: "Sentry user auth token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sntryu_"},
		Pattern: `\b(sntryu_[a-f0-9]{64})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "grafana-cloud-token", Type: "grafana_cloud_token", Name: "Grafana Cloud API token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glc_"},
		Pattern: `\b(glc_[A-Za-z0-9+/]{32,400}={0,2})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "glc_lg5EgcyWujxOjNZDGGJqj3xeMZnYNe1IE8iLgd6+ZM6wqmIkhqCw0SIbdeH4CMFIMGB+qSjpL44vdDOtlEMKI8UGHGR1bT6yQy533PF/S20fFsXF9/+K9rXt=="`,
		},
	},
	{
		ID: "grafana-service-account-token", Type: "grafana_service_account_token", Name: "Grafana service account token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glsa_"},
		Pattern: `\b(glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8})`,
		Examples: []string{
			`TOKEN = "glsa_fzDPL4lf7Twxa9quT63xFLYWwohdD1Xe_05d582b2"`,
		},
	},
	{
		ID: "grafana-api-key", Type: "grafana_api_key", Name: "Grafana API key (legacy)",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"eyJrIjoi"},
		Pattern: `\b(eyJrIjoi[A-Za-z0-9]{70,400}={0,2})`,
		MinEntropy: 4.0,
		Priority: 1,
		Examples: []string{
			`TOKEN = "eyJrIjoiBfdq4blFauBAcORJwBzJ8OS6GtAzzONj8b18Q9UMNamYfltZLDYRkci9xmHK0psC28xd7OgOfBpaeIy9qVMr2ZX7UB="`,
		},
	},
	{
		ID: "dynatrace-api-token", Type: "dynatrace_api_token", Name: "Dynatrace API token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dt0c01."},
		Pattern: `\b(dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64})`,
		Examples: []string{
			`TOKEN = "dt0c01.YZCVUNUU53JD8Y7SS6S0UEM1.WM1ZAPUZYL7NCB7BHMALKYHZE9759P2LRNQ663MS4SIUZGTM3YPUKAPIIBH3U9SY"`,
		},
	},
	{
		ID: "posthog-personal-key", Type: "posthog_personal_api_key", Name: "PostHog personal API key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"phx_"},
		Pattern: `\b(phx_[A-Za-z0-9]{43})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "phx_6MFv92BXDPVSgOyGgYbapJ97wABGJL3PLvCy2qMpd6V"`,
		},
	},
	{
		ID: "sentry-dsn", Type: "sentry_dsn", Name: "Sentry DSN with secret key",
		Family: "observability", Severity: SeverityLow, Evidence: evStructure,
		Keywords: []string{"sentry.io"},
		Pattern: `https://(?P<secret>[a-f0-9]{32})(?::[a-f0-9]{32})?@[\w.-]{0,40}\.?sentry\.io/\d+`,
		Before: 100,
		After: 40,
		Examples: []string{
			`SENTRY_DSN=https://bd6cc30c031d1738ee42d700aa99259c@o271856.ingest.sentry.io/7154817`,
		},
	},
}
