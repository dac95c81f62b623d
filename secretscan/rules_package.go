// Code written by hand as data; one family per file.

package secretscan

// packageRules: package registries (npm, PyPI, RubyGems, NuGet, Docker Hub, ...).
var packageRules = []*rule{
	{
		ID: "npm-access-token", Type: "npm_access_token", Name: "npm access token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"npm_"},
		Pattern: `\b(npm_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`//registry.npmjs.org/:_authToken=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`,
			`//registry.npmjs.org/:_authToken=npm_GNRIz5OEQBmk6fYy4PJTNOlgWzOnPaMq0e9l`,
		},
	},
	{
		ID: "npmrc-auth-token", Type: "npm_legacy_auth_token", Name: "npm auth token in .npmrc",
		Family: "package", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"_authToken"},
		Pattern: `_authToken\s*=\s*["\']?(?P<secret>[A-Za-z0-9_./+=-]{20,200})`,
		Before: 4,
		MinEntropy: 3.0,
		Examples: []string{
			`//registry.npmjs.org/:_authToken=2ad98164-697f-06f5-8213-2b2386e894ab`,
			`_authToken=zvysjqOWi/ws3U+SPlX7M5OK3wPNHwUFfdem2BrH`,
		},
		NegativeExamples: []string{
			`_authToken=${NPM_TOKEN}`,
		},
	},
	{
		ID: "npmrc-auth", Type: "npm_basic_auth", Name: "npm _auth (base64 user:password) in .npmrc",
		Family: "package", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"_auth="},
		Pattern: `_auth=(?P<secret>[A-Za-z0-9+/]{12,200}={0,2})`,
		Before: 4,
		Validate: validBasicAuth,
		Examples: []string{
			`_auth=ZGVwbG95OjFrcVBHMm5iSWh6M3lFYWs=`,
		},
	},
	{
		ID: "pypi-upload-token", Type: "pypi_upload_token", Name: "PyPI upload token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"pypi-AgEIcHlwaS5vcmc"},
		Pattern: `\b(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,300})`,
		Validate: validPyPI,
		Examples: []string{
			`TOKEN = "pypi-AgEIcHlwaS5vcmcwt7b6TZNYruxFP2kgegZQ9nWXS2xr5bvjwjKZDLhPsR8GSCtCtxvMWvcvnJ4PFI89A5yRAuSIS88hhNilNWytKiqh-VwJa5cpS-VOF4Vi3gszmrC9o00Dn19"`,
		},
	},
	{
		ID: "pypi-test-upload-token", Type: "pypi_test_upload_token", Name: "TestPyPI upload token",
		Family: "package", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"pypi-AgENdGVzdC5weXBpLm9yZw"},
		Pattern: `\b(pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9_-]{50,300})`,
		Examples: []string{
			`TOKEN = "pypi-AgENdGVzdC5weXBpLm9yZwd3ehUTuiYRWSKxKZ5mFOOM8BdZnpDUJDn0e8S9veVANfD7cCUk0pZlrjcn5gDQb72qWaKP5kM2WYeOOPCgE5JfZKBdWUPMYg20mQxPR0_wAuZu18cYUxOQfB"`,
		},
	},
	{
		ID: "rubygems-api-key", Type: "rubygems_api_key", Name: "RubyGems API key",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"rubygems_"},
		Pattern: `\b(rubygems_[a-f0-9]{48})`,
		Examples: []string{
			`TOKEN = "rubygems_1e12bfc1befbb0249ef185c41d558c598b426e88cfd15630"`,
		},
	},
	{
		ID: "nuget-api-key", Type: "nuget_api_key", Name: "NuGet API key",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"oy2"},
		Pattern: `\b(oy2[a-z0-9]{43})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "oy2cl1pp1ls2fji1ihf2pupmor2r00s8161qwffokzcg7q"`,
		},
	},
	{
		ID: "dockerhub-pat", Type: "dockerhub_personal_access_token", Name: "Docker Hub personal access token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dckr_pat_"},
		Pattern: `\b(dckr_pat_[A-Za-z0-9_-]{27})`,
		Examples: []string{
			`TOKEN = "dckr_pat_rmEugohyBPHPMvQ97bw0rbQ5s3D"`,
		},
	},
	{
		ID: "dockerhub-oat", Type: "dockerhub_organization_access_token", Name: "Docker Hub organization access token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dckr_oat_"},
		Pattern: `\b(dckr_oat_[A-Za-z0-9_-]{32})`,
		Examples: []string{
			`TOKEN = "dckr_oat_Y3JY11tGuqLWm5bz2Gt8cwmv22tM2eEW"`,
		},
	},
	{
		ID: "docker-config-auth", Type: "docker_registry_auth", Name: "Registry credentials in a Docker config.json",
		Family: "package", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"\"auths\""},
		Pattern: `(?s)"auths"\s*:\s*\{.{0,400}?"auth"\s*:\s*"(?P<secret>[A-Za-z0-9+/]{12,400}={0,2})"`,
		After: 700,
		Validate: validBasicAuth,
		Examples: []string{
			`{"auths": {"https://index.docker.io/v1/": {"auth": "YnVpbGRlcjpJSGNaeHBKZWxLNkFCR2tqUDNpNw=="}}}`,
		},
	},
	{
		ID: "cratesio-api-token", Type: "cratesio_api_token", Name: "crates.io API token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"cio"},
		Pattern: `\b(cio[a-zA-Z0-9]{32})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "cioDxNxLPtWl6P4YZPrtRpd4370HcfMafWb"`,
		},
	},
	{
		ID: "artifactory-api-key", Type: "artifactory_api_key", Name: "JFrog Artifactory API key",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"AKCp"},
		Pattern: `\b(AKCp[A-Za-z0-9]{69})`,
		Examples: []string{
			`TOKEN = "AKCpKJlpml1z9lljIQTfrTQEyyeOfsAwDJYvezJXIAttAIF55YVCQB7z3xHBWsK1lBLAIiDWZ"`,
		},
	},
	{
		ID: "artifactory-reference-token", Type: "artifactory_reference_token", Name: "JFrog Artifactory reference token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"cmVmdGtu"},
		Pattern: `\b(cmVmdGtu[A-Za-z0-9]{56})`,
		Examples: []string{
			`TOKEN = "cmVmdGtuUpB8m7yWZCstbPgxECbxNV2a6BM7YrkhT7H5MC3GM7D2J4OxviwwKtO7"`,
		},
	},
	{
		ID: "clojars-token", Type: "clojars_deploy_token", Name: "Clojars deploy token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"CLOJARS_"},
		Pattern: `\b(CLOJARS_[a-z0-9]{60})`,
		Examples: []string{
			`TOKEN = "CLOJARS_jjqhwzovjuqtc23mt8vo3ska0uixlhjrjc3rzxu2hnfntqrqz67exo56pfu7"`,
		},
	},
	{
		ID: "hex-pm-api-key", Type: "hexpm_api_key", Name: "Hex.pm API key",
		Family: "package", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"HEX_API_KEY"},
		Pattern: `(?i)hex_api_key["\']?\s*[:=]\s*["\']?(?P<secret>[a-f0-9]{32})`,
		Before: 2,
		Examples: []string{
			`TOKEN = "HEX_API_KEY=1e19347348057824f69966ab9928f9a2"`,
		},
	},
}
