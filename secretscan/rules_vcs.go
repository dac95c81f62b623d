// Code written by hand as data; one family per file.

package secretscan

// vcsRules: source hosting (GitHub, GitLab, Bitbucket, Atlassian, Sourcegraph).
var vcsRules = []*rule{
	{
		ID: "github-ghp", Type: "github_personal_access_token", Name: "GitHub personal access token (classic)",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"ghp_"},
		Pattern: `\b(ghp_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`GITHUB_TOKEN=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`,
			`GITHUB_TOKEN=ghp_KEReks2IDIfMlflzR5JCBADyyi2VmYHyFguH`,
		},
		NegativeExamples: []string{
			`ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`,
			`ghp_000000000000000000000000000000000000`,
		},
	},
	{
		ID: "github-gho", Type: "github_oauth_token", Name: "GitHub OAuth access token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"gho_"},
		Pattern: `\b(gho_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`GITHUB_TOKEN=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`,
			`GITHUB_TOKEN=gho_FUqUkgtMPVXfPoMmpVbdq7kdRWZJfBcoIcKx`,
		},
	},
	{
		ID: "github-ghu", Type: "github_user_to_server_token", Name: "GitHub App user-to-server token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"ghu_"},
		Pattern: `\b(ghu_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`GITHUB_TOKEN=ghu_jnJFgbNoMVIBKhtnKFRBxCDeTow3ud4IhzcN`,
			`GITHUB_TOKEN=ghu_M5hUPMpWAriy8hrM9GNPl3l9rLryBzM2hVeR`,
		},
	},
	{
		ID: "github-ghs", Type: "github_server_to_server_token", Name: "GitHub App installation token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"ghs_"},
		Pattern: `\b(ghs_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`GITHUB_TOKEN=ghs_A8gthfmQnNKXbmXvGNof6aUfB26bHM0jd7Xl`,
			`GITHUB_TOKEN=ghs_lHbwQdlTsCH399n1836uisLkr5SSR3h1nMeo`,
		},
	},
	{
		ID: "github-ghr", Type: "github_refresh_token", Name: "GitHub refresh token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"ghr_"},
		Pattern: `\b(ghr_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`GITHUB_TOKEN=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`,
			`GITHUB_TOKEN=ghr_HQwKKlqhgL1UplGwLUsqgozfWQittFp4V1A0`,
		},
	},
	{
		ID: "github-fine-grained-pat", Type: "github_fine_grained_pat", Name: "GitHub fine-grained personal access token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"github_pat_"},
		Pattern: `\b(github_pat_[0-9A-Za-z]{22}_[0-9A-Za-z]{59})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "gitlab-personal-access-token", Type: "gitlab_personal_access_token", Name: "GitLab personal access token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glpat-"},
		Pattern: `\b(glpat-[0-9A-Za-z_-]{20,64})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glpat-YzWS6sMfAMMbKsgRW3ly"`,
		},
	},
	{
		ID: "gitlab-deploy-token", Type: "gitlab_deploy_token", Name: "GitLab deploy token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"gldt-"},
		Pattern: `\b(gldt-[0-9A-Za-z_-]{20,64})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "gldt-08X9UmyvzJYoJNDFGrK5"`,
		},
	},
	{
		ID: "gitlab-pipeline-trigger-token", Type: "gitlab_pipeline_trigger_token", Name: "GitLab pipeline trigger token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glptt-"},
		Pattern: `\b(glptt-[0-9a-f]{40})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glptt-253932598e7e3b13f3fd7e5c39cd1d6dfdabb6a3"`,
		},
	},
	{
		ID: "gitlab-runner-token", Type: "gitlab_runner_token", Name: "GitLab runner authentication token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glrt-"},
		Pattern: `\b(glrt-[0-9A-Za-z_-]{20,64})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glrt-GG2CzzshBr61XLnJtD88"`,
		},
	},
	{
		ID: "gitlab-runner-registration-token", Type: "gitlab_runner_registration_token", Name: "GitLab runner registration token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"GR1348941"},
		Pattern: `\b(GR1348941[0-9A-Za-z_-]{20})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "GR1348941o3AXXncKxDZTbjRczwxQ"`,
		},
	},
	{
		ID: "gitlab-feed-token", Type: "gitlab_feed_token", Name: "GitLab feed token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glft-"},
		Pattern: `\b(glft-[0-9A-Za-z_-]{20})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glft-scpeviakntbffE1JPhZK"`,
		},
	},
	{
		ID: "gitlab-incoming-mail-token", Type: "gitlab_incoming_mail_token", Name: "GitLab incoming mail token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glimt-"},
		Pattern: `\b(glimt-[0-9A-Za-z_-]{25})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glimt-Qu4i69iQ985KQqc5sshuIxJz2"`,
		},
	},
	{
		ID: "gitlab-oauth-app-secret", Type: "gitlab_oauth_app_secret", Name: "GitLab OAuth application secret",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"gloas-"},
		Pattern: `\b(gloas-[0-9A-Za-z_-]{64})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "gloas-G3cl3ygsiihqRDkDoSIXaM7XFUTXJOQhJeMPLgn8pMlRJssPkemJctFnoUeqPmr2"`,
		},
	},
	{
		ID: "gitlab-scim-token", Type: "gitlab_scim_token", Name: "GitLab SCIM OAuth token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glsoat-"},
		Pattern: `\b(glsoat-[0-9A-Za-z_-]{20})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glsoat-L0AHiass3zrgA2rTAEZo"`,
		},
	},
	{
		ID: "gitlab-agent-token", Type: "gitlab_agent_token", Name: "GitLab Kubernetes agent token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glagent-"},
		Pattern: `\b(glagent-[0-9A-Za-z_-]{50})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glagent-5wgZa33avuVQ6pJeTelCaj84wAzI3VpMHnawmmYDb2RrvGNKBY"`,
		},
	},
	{
		ID: "gitlab-feature-flag-client-token", Type: "gitlab_feature_flag_client_token", Name: "GitLab feature flags client token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glffct-"},
		Pattern: `\b(glffct-[0-9A-Za-z_-]{20})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glffct-48k6b7jxjogHZg6ruHLi"`,
		},
	},
	{
		ID: "gitlab-ci-build-token", Type: "gitlab_ci_build_token", Name: "GitLab CI/CD job token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"glcbt-"},
		Pattern: `\b(glcbt-[0-9a-fA-F]{1,5}_[0-9A-Za-z_-]{20})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glcbt-1a_q1PfTxGHWfU6mPhWS1h1"`,
		},
	},
	{
		ID: "bitbucket-app-password", Type: "bitbucket_app_password", Name: "Bitbucket app password",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"ATBB"},
		Pattern: `\b(ATBB[A-Za-z0-9_=.-]{32})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "ATBB0GEyGugMnOxzAZwCILHxlsLL3oEENuKn"`,
		},
	},
	{
		ID: "atlassian-api-token", Type: "atlassian_api_token", Name: "Atlassian API token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"ATATT3", "ATCTT3"},
		Pattern: `\b(AT(?:ATT|CTT)3[A-Za-z0-9_\-=]{150,220})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "ATATT3xFfGF0FFxGwqduRzXqrhzFk5NZ-OuTLnJICscxf_doza6HJWX1YIpPjIiVxfzfSCqGpBD473G_MnOBBghJn_qrHL-jLWPmMBVc2h-fZqcDLzxMc_iBeiDy2S3iHj85npUoPnLMWhfnk9X0Ka3cdaXmD5l0UFlMap6j8zCKnzHpsY6LTj=E4D2F947"`,
		},
	},
	{
		ID: "sourcegraph-access-token", Type: "sourcegraph_access_token", Name: "Sourcegraph access token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sgp_"},
		Pattern: `\b(sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40})`,
		Examples: []string{
			`TOKEN = "sgp_228f9374b5d75fd9c0c9e1184cf004e602b2327e"`,
			`TOKEN = "sgp_9761ab2419197510_1243d532707e8acd1b51a2efc1d7bf805b7db7e9"`,
		},
	},
}
