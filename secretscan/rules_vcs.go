// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

// vcsRules: source hosting (GitHub, GitLab, Bitbucket, Atlassian, Sourcegraph).
var vcsRules = []*rule{
	{
		ID: "github-ghp", Type: "github_personal_access_token", Name: "GitHub personal access token (classic)",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"ghp_"},
		Pattern:  `\b(ghp_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`GITHUB_TOKEN=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`,
			`GITHUB_TOKEN=ghp_NPl3l9rLryBzM2hVeRA8gthfmQnNKXbmXvGN`,
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
		Pattern:  `\b(gho_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`GITHUB_TOKEN=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`,
			`GITHUB_TOKEN=gho_6uisLkr5SSR3h1nMeo4kB7978eMFUCOHaNvx`,
		},
	},
	{
		ID: "github-ghu", Type: "github_user_to_server_token", Name: "GitHub App user-to-server token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"ghu_"},
		Pattern:  `\b(ghu_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`GITHUB_TOKEN=ghu_iUQPbysvpgqdHQwKKlqhgL1UplGwLU076z1Z`,
			`GITHUB_TOKEN=ghu_sqgozfWQittFp4V1A0rjK4xCbBx9nd4fZJeX`,
		},
	},
	{
		ID: "github-ghs", Type: "github_server_to_server_token", Name: "GitHub App installation token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"ghs_"},
		Pattern:  `\b(ghs_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`GITHUB_TOKEN=ghs_ArQ24QGsEsDRYxV9zXHJXMtG6jOymZ1vlkJx`,
			`GITHUB_TOKEN=ghs_KRbyOlzlezIFSr6BzPkqOaQLKrSWJebyTYzW`,
		},
	},
	{
		ID: "github-ghr", Type: "github_refresh_token", Name: "GitHub refresh token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"ghr_"},
		Pattern:  `\b(ghr_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`GITHUB_TOKEN=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`,
			`GITHUB_TOKEN=ghr_NDFGrK55wAW7cjJsp64AsXzWJGfwSnFxS7tN`,
		},
	},
	{
		ID: "github-fine-grained-pat", Type: "github_fine_grained_pat", Name: "GitHub fine-grained personal access token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"github_pat_"},
		Pattern:  `\b(github_pat_[0-9A-Za-z]{22}_[0-9A-Za-z]{59})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "gitlab-personal-access-token", Type: "gitlab_personal_access_token", Name: "GitLab personal access token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"glpat-"},
		Pattern:    `\b(glpat-[0-9A-Za-z_-]{20,64})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glpat-cpeviakntbffE1JPhZKQ"`,
		},
	},
	{
		ID: "gitlab-deploy-token", Type: "gitlab_deploy_token", Name: "GitLab deploy token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"gldt-"},
		Pattern:    `\b(gldt-[0-9A-Za-z_-]{20,64})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "gldt-u4i69iQ985KQqc5sshuI"`,
		},
	},
	{
		ID: "gitlab-pipeline-trigger-token", Type: "gitlab_pipeline_trigger_token", Name: "GitLab pipeline trigger token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"glptt-"},
		Pattern:    `\b(glptt-[0-9a-f]{40})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glptt-91811d66e9b37fe9cd9bca4bd9c97fc1a058151e"`,
		},
	},
	{
		ID: "gitlab-runner-token", Type: "gitlab_runner_token", Name: "GitLab runner authentication token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"glrt-"},
		Pattern:    `\b(glrt-[0-9A-Za-z_-]{20,64})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glrt-AEZo5wgZa33avuVQ6pJe"`,
		},
	},
	{
		ID: "gitlab-runner-registration-token", Type: "gitlab_runner_registration_token", Name: "GitLab runner registration token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"GR1348941"},
		Pattern:    `\b(GR1348941[0-9A-Za-z_-]{20})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "GR1348941TelCaj84wAzI3VpMHnaw"`,
		},
	},
	{
		ID: "gitlab-feed-token", Type: "gitlab_feed_token", Name: "GitLab feed token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"glft-"},
		Pattern:    `\b(glft-[0-9A-Za-z_-]{20})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glft-mmYDb2RrvGNKBY48k6b7"`,
		},
	},
	{
		ID: "gitlab-incoming-mail-token", Type: "gitlab_incoming_mail_token", Name: "GitLab incoming mail token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"glimt-"},
		Pattern:    `\b(glimt-[0-9A-Za-z_-]{25})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glimt-jxjogHZg6ruHLiq1PfTxGHWfU"`,
		},
	},
	{
		ID: "gitlab-oauth-app-secret", Type: "gitlab_oauth_app_secret", Name: "GitLab OAuth application secret",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"gloas-"},
		Pattern:    `\b(gloas-[0-9A-Za-z_-]{64})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "gloas-6mPhWS1h10GEyGugMnOxzAZwCILHxlsLL3oEENuKn7m7fhnsoTy8TQWaJoSlYwnz"`,
		},
	},
	{
		ID: "gitlab-scim-token", Type: "gitlab_scim_token", Name: "GitLab SCIM OAuth token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"glsoat-"},
		Pattern:    `\b(glsoat-[0-9A-Za-z_-]{20})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glsoat-DUpGQQLUgx7fyuWgN2dB"`,
		},
	},
	{
		ID: "gitlab-agent-token", Type: "gitlab_agent_token", Name: "GitLab Kubernetes agent token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"glagent-"},
		Pattern:    `\b(glagent-[0-9A-Za-z_-]{50})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glagent-HnnfVCbSEAOYW9eto96RJTKVJPUIph389uGG0H9hqPCMme9iMx"`,
		},
	},
	{
		ID: "gitlab-feature-flag-client-token", Type: "gitlab_feature_flag_client_token", Name: "GitLab feature flags client token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"glffct-"},
		Pattern:    `\b(glffct-[0-9A-Za-z_-]{20})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glffct-hFTKUKE6Qpn8whPqy562"`,
		},
	},
	{
		ID: "gitlab-ci-build-token", Type: "gitlab_ci_build_token", Name: "GitLab CI/CD job token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"glcbt-"},
		Pattern:    `\b(glcbt-[0-9a-fA-F]{1,5}_[0-9A-Za-z_-]{20})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "glcbt-1a_318VBOayjCn55sLL9Oyz"`,
		},
	},
	{
		ID: "bitbucket-app-password", Type: "bitbucket_app_password", Name: "Bitbucket app password",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"ATBB"},
		Pattern:    `\b(ATBB[A-Za-z0-9_=.-]{32})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "ATBBVQQg8ArVjMvAfsbGCnOXXB5FJb1gLVKn"`,
		},
	},
	{
		ID: "atlassian-api-token", Type: "atlassian_api_token", Name: "Atlassian API token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"ATATT3", "ATCTT3"},
		Pattern:    `\b(AT(?:ATT|CTT)3[A-Za-z0-9_\-=]{150,220})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "ATATT3xFfGF0ZqcDLzxMc_iBeiDy2S3iHj85npUoPnLMWhfnk9X0Ka3cdaXmD5l0UFlMap6j8zCKnzHpsY6LTjwGtAzdJT9BW_dDVGkNrVK_rcp0pdu45YJm-01GuR19kAD9SwdUR5hiBJ6c6bUK6249HDtLC9V0VwWgpq7iL7g8u-n5rTlzX2=5B7DB7E9"`,
		},
	},
	{
		ID: "sourcegraph-access-token", Type: "sourcegraph_access_token", Name: "Sourcegraph access token",
		Family: "vcs", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sgp_"},
		Pattern:  `\b(sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40})`,
		Examples: []string{
			`TOKEN = "sgp_a81f3b24672314e70b4bdf389576d18ac631e191"`,
			`TOKEN = "sgp_3906b0fd9a3bae79_6b50ea67a79878f682d0596973dcc00db1d8d370"`,
		},
	},
}
