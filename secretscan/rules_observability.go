// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

// observabilityRules: monitoring, logging and error tracking.
var observabilityRules = []*rule{
	{
		ID: "newrelic-user-key", Type: "newrelic_user_api_key", Name: "New Relic user API key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRAK-"},
		Pattern:  `\b(NRAK-[A-Z0-9]{27})`,
		Examples: []string{
			`TOKEN = "NRAK-JMJAO5R37QRN8PORI0NWLFFP7HV"`,
		},
	},
	{
		ID: "newrelic-insert-key", Type: "newrelic_insert_key", Name: "New Relic insights insert key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRII-"},
		Pattern:  `\b(NRII-[A-Za-z0-9_-]{32})`,
		Examples: []string{
			`TOKEN = "NRII-holLVU7no30mtc8cO9-v2dKW2tqBCAvR"`,
		},
	},
	{
		ID: "newrelic-browser-key", Type: "newrelic_browser_api_key", Name: "New Relic browser API key",
		Family: "observability", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"NRJS-"},
		Pattern:  `\b(NRJS-[a-f0-9]{19})`,
		Examples: []string{
			`TOKEN = "NRJS-d75d0825ff3ccc016ba"`,
		},
	},
	{
		ID: "newrelic-admin-key", Type: "newrelic_admin_api_key", Name: "New Relic admin API key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRAA-"},
		Pattern:  `\b(NRAA-[a-f0-9]{27})`,
		Examples: []string{
			`TOKEN = "NRAA-0083a3d448424b73b056cbb150a"`,
		},
	},
	{
		ID: "newrelic-license-key", Type: "newrelic_license_key", Name: "New Relic ingest license key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"NRAL"},
		Pattern:  `\b(?P<secret>(?:[a-f0-9]{36}|[a-z]{2}\d{2}xx[a-f0-9]{30})NRAL)\b`,
		Before:   40,
		Examples: []string{
			`license_key: 84c400e50363f13fb4f04ab66ba13a9f8ebeNRAL`,
			`license: eu01xx5c8f0e2a9b7d4c1e6f3a0b8d2c5e7fNRAL`,
		},
		NegativeExamples: []string{
			`license_key: z9y8x7w6v5u4t3s2r1q0p9o8n7m6l5k4j3i2NRAL`, // not hexadecimal
		},
	},
	{
		ID: "sentry-org-token", Type: "sentry_org_token", Name: "Sentry organization auth token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"sntrys_"},
		Pattern:    `\b(sntrys_eyJ[A-Za-z0-9+/=_-]{80,400}(?:_[A-Za-z0-9+/]{43})?)`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "sntrys_eyJOjNZDGGJqj3xeMZnYNe1IE8iLgd6+ZM6wqmIkhqCw0SIbdeH4CMFIMGB+qSjpL44vdDOtlEMKI8UGHGR1bT6yQy533PF/S20fFsXF9/+K9rXtRpg9EwIxC6UgR22MtMX8j8N8VNKntcMdGmvDWKnlG_2GqIzjkgRsIZf0P5GEmnNaJ+j4EyNmp5heRff+wJ7nb"`,
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
			`TOKEN = "glc_iVJ5MRo/unWcIELMXch7pgP4iD+ksPnnE1p1D6t7VEZxwH8sU23fhad9MbnLw9lrwAgdFySLEuB/GUeP4vu86e+ovCYoRZUIkblhi0fEbQmk3fV7j1Eo4YDL=="`,
		},
	},
	{
		ID: "grafana-service-account-token", Type: "grafana_service_account_token", Name: "Grafana service account token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glsa_"},
		Pattern:  `\b(glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8})`,
		Examples: []string{
			`TOKEN = "glsa_dwJDeSOmdIF4jEmDcdKKNFz5OkFKmNsE_3092d951"`,
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
			`TOKEN = "eyJrIjoi6tBBPbusFPEk5Wr9sXW3ba2KTPFcemfMsQwgaeFtOTrwOztgXIiCis9i48z3lhTsL8KbPaZRG5vi9uBUW8t50JohWP="`,
		},
	},
	{
		ID: "dynatrace-api-token", Type: "dynatrace_api_token", Name: "Dynatrace API token",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dt0c01."},
		Pattern:  `\b(dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64})`,
		Examples: []string{
			`TOKEN = "dt0c01.OID0I6QAPX28YZ82XG9JFL6A.Q3VVIEW6EZ3UMVF1KXRKPI6C5CW08ONMTGG7CN6939EHW7HKWDM4HKEOSZ0GCWCU"`,
		},
	},
	{
		ID: "posthog-personal-key", Type: "posthog_personal_api_key", Name: "PostHog personal API key",
		Family: "observability", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"phx_"},
		Pattern:    `\b(phx_[A-Za-z0-9]{43})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "phx_Ps25KmKUDheO1iIpfJJSeoEg0UPJP17m0byqJnDOcQ4"`,
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
			`SENTRY_DSN=https://51819c8d71d7cc55b03057bac9e1506f@o593353.ingest.sentry.io/8095344`,
		},
	},
}
