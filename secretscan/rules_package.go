// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

// packageRules: package registries (npm, PyPI, RubyGems, NuGet, Docker Hub, ...).
var packageRules = []*rule{
	{
		ID: "npm-access-token", Type: "npm_access_token", Name: "npm access token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"npm_"},
		Pattern:  `\b(npm_[A-Za-z0-9]{36})`,
		Validate: crc32Tail(4),
		Examples: []string{
			`//registry.npmjs.org/:_authToken=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`,
			`//registry.npmjs.org/:_authToken=npm_a7KJxcKO1c5sQ81kqPG2nbIhz3yEakppaeTR`,
		},
	},
	{
		ID: "npmrc-auth-token", Type: "npm_legacy_auth_token", Name: "npm auth token in .npmrc",
		Family: "package", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords:   []string{"_authToken"},
		Pattern:    `_authToken\s*=\s*["\']?(?P<secret>[A-Za-z0-9_./+=-]{20,200})`,
		Before:     4,
		MinEntropy: 3.0,
		Examples: []string{
			`//registry.npmjs.org/:_authToken=1917858d-ee36-0baa-a862-c8870ed19ebe`,
			`_authToken=jKZDLhPsR8GSCtCtxvMWvcvnJ4PFI89A5yRAuSIS`,
		},
		NegativeExamples: []string{
			`_authToken=${NPM_TOKEN}`,
		},
	},
	{
		ID: "npmrc-auth", Type: "npm_basic_auth", Name: "npm _auth (base64 user:password) in .npmrc",
		Family: "package", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"_auth="},
		Pattern:  `_auth=(?P<secret>[A-Za-z0-9+/]{12,200}={0,2})`,
		Before:   4,
		Validate: validBasicAuth,
		Examples: []string{
			`_auth=ZGVwbG95OjR1bW1wdDRMTEJ6cU15V04=`,
		},
	},
	{
		ID: "pypi-upload-token", Type: "pypi_upload_token", Name: "PyPI upload token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"pypi-AgEIcHlwaS5vcmc"},
		Pattern:  `\b(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,300})`,
		Validate: validPyPI,
		Examples: []string{
			`TOKEN = "pypi-AgEIcHlwaS5vcmcNWytKiqh-VwJa5cpS-VOF4Vi3gszmrC9o00Dn19d3ehUTuiYRWSKxKZ5mFOOM8BdZnpDUJDn0e8S9veVANfD7cCUk0pZlrjcn5gDQb72qWaKP5kM2WYeOOPC"`,
		},
	},
	{
		ID: "pypi-test-upload-token", Type: "pypi_test_upload_token", Name: "TestPyPI upload token",
		Family: "package", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"pypi-AgENdGVzdC5weXBpLm9yZw"},
		Pattern:  `\b(pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9_-]{50,300})`,
		Examples: []string{
			`TOKEN = "pypi-AgENdGVzdC5weXBpLm9yZwgE5JfZKBdWUPMYg20mQxPR0_wAuZu18cYUxOQfB5x5Bl-n7iv-ij19Jdv-6WNpI6rKLWnMdYjIBOxZXnyt4LQD14NtUVsNbvAIHtHFAvUeUPSYvZrrbttXjB"`,
		},
	},
	{
		ID: "rubygems-api-key", Type: "rubygems_api_key", Name: "RubyGems API key",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"rubygems_"},
		Pattern:  `\b(rubygems_[a-f0-9]{48})`,
		Examples: []string{
			`TOKEN = "rubygems_275c138dc3eacaf26465e6219e0d961d03804800d4ed58c1"`,
		},
	},
	{
		ID: "nuget-api-key", Type: "nuget_api_key", Name: "NuGet API key",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"oy2"},
		Pattern:    `\b(oy2[a-z0-9]{43})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "oy2s4bi1et3y2bb1lbu8hqsr9tugklqzdhnxvz6gze89z1"`,
		},
	},
	{
		ID: "dockerhub-pat", Type: "dockerhub_personal_access_token", Name: "Docker Hub personal access token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dckr_pat_"},
		Pattern:  `\b(dckr_pat_[A-Za-z0-9_-]{27})`,
		Examples: []string{
			`TOKEN = "dckr_pat_96E1Zifd2JarwxqTnLQcdbLKbUA"`,
		},
	},
	{
		ID: "dockerhub-oat", Type: "dockerhub_organization_access_token", Name: "Docker Hub organization access token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dckr_oat_"},
		Pattern:  `\b(dckr_oat_[A-Za-z0-9_-]{32})`,
		Examples: []string{
			`TOKEN = "dckr_oat_A_OrNF7YMe2MhKbQzNHEPoTOl_5CMiFw"`,
		},
	},
	{
		ID: "docker-config-auth", Type: "docker_registry_auth", Name: "Registry credentials in a Docker config.json",
		Family: "package", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"\"auths\""},
		Pattern:  `(?s)"auths"\s*:\s*\{.{0,400}?"auth"\s*:\s*"(?P<secret>[A-Za-z0-9+/]{12,400}={0,2})"`,
		After:    700,
		Validate: validBasicAuth,
		Examples: []string{
			`{"auths": {"https://index.docker.io/v1/": {"auth": "YnVpbGRlcjo3SDVNQzNHTTdEMko0T3h2aXd3Sw=="}}}`,
		},
	},
	{
		ID: "cratesio-api-token", Type: "cratesio_api_token", Name: "crates.io API token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"cio"},
		Pattern:    `\b(cio[a-zA-Z0-9]{32})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "ciotO79uz9Gp7MPkEgyL9KGJ2STCJrtzYLE"`,
		},
	},
	{
		ID: "artifactory-api-key", Type: "artifactory_api_key", Name: "JFrog Artifactory API key",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"AKCp"},
		Pattern:  `\b(AKCp[A-Za-z0-9]{69})`,
		Examples: []string{
			`TOKEN = "AKCpnTIA0QdK8jNBd79rH9llvw2THPjNiKqS7D5nDJGtpxtHnGPWX4anNElVWFwxy5nxKX2T3"`,
		},
	},
	{
		ID: "artifactory-reference-token", Type: "artifactory_reference_token", Name: "JFrog Artifactory reference token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"cmVmdGtu"},
		Pattern:  `\b(cmVmdGtu[A-Za-z0-9]{56})`,
		Examples: []string{
			`TOKEN = "cmVmdGtuJ79mF7u8yH0jBxFHc4b9pWzwVCmIiIZxCCmeLMliJJ4GoWVJLh4zsXuI"`,
		},
	},
	{
		ID: "clojars-token", Type: "clojars_deploy_token", Name: "Clojars deploy token",
		Family: "package", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"CLOJARS_"},
		Pattern:  `\b(CLOJARS_[a-z0-9]{60})`,
		Examples: []string{
			`TOKEN = "CLOJARS_zflx4z65k75wexfy20vsx0ym6ugtwmfg4g69of990qwqfah6r8oh1bfp81qx"`,
		},
	},
	{
		ID: "hex-pm-api-key", Type: "hexpm_api_key", Name: "Hex.pm API key",
		Family: "package", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"HEX_API_KEY"},
		Pattern:  `(?i)hex_api_key["\']?\s*[:=]\s*["\']?(?P<secret>[a-f0-9]{32})`,
		Before:   2,
		Examples: []string{
			`TOKEN = "HEX_API_KEY=e36c4c4a88195621646a5e9e5a585a83"`,
		},
	},
}
