// Code written by hand as data; one family per file.

package secretscan

// cicdRules: CI/CD and infrastructure tooling.
var cicdRules = []*rule{
	{
		ID: "circleci-personal-token", Type: "circleci_personal_token", Name: "CircleCI personal API token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"CCIPAT_"},
		Pattern: `\b(CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "CCIPAT_LH2Ujm7vtMy49DEsy56Xd2_4e70b4bdf389576d18ac631e1913906b0fd9a3ba"`,
		},
	},
	{
		ID: "circleci-project-token", Type: "circleci_project_token", Name: "CircleCI project API token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"CCIPRJ_"},
		Pattern: `\b(CCIPRJ_[A-Za-z0-9]{22}_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "CCIPRJ_ThYEIDNBY1TLDELFIHfFql_8f682d0596973dcc00db1d8d370b275cd3a9a1c1"`,
		},
	},
	{
		ID: "buildkite-agent-token", Type: "buildkite_user_token", Name: "Buildkite API access token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"bkua_"},
		Pattern: `\b(bkua_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "bkua_afed8f58938bc30acb18145015630fd32d5910cc"`,
		},
	},
	{
		ID: "teamcity-token", Type: "teamcity_access_token", Name: "JetBrains TeamCity access token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"eyJ0eXAiOiAiVENWMiJ9"},
		Pattern: `\b(eyJ0eXAiOiAiVENWMiJ9\.[A-Za-z0-9_-]{36}\.[A-Za-z0-9_-]{48})`,
		Priority: 1,
		Examples: []string{
			`TOKEN = "eyJ0eXAiOiAiVENWMiJ9.v4Wp6eDu7-ogZzxXszWZAcjfQKUt03r8MGNn.O0yXnS9xK58FvUmsuE7lHOCoLqmPFAZ9sJT2bfY6QkwH7yEP"`,
		},
	},
	{
		ID: "sonarqube-user-token", Type: "sonarqube_user_token", Name: "SonarQube user token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"squ_"},
		Pattern: `\b(squ_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "squ_f46dbda900092b44e4d76e28a843c642abbe3d97"`,
		},
	},
	{
		ID: "sonarqube-project-token", Type: "sonarqube_project_token", Name: "SonarQube project token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sqp_"},
		Pattern: `\b(sqp_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "sqp_c830b7cd47a48bd59141706e0d8db443eceef6be"`,
		},
	},
	{
		ID: "sonarqube-global-token", Type: "sonarqube_global_token", Name: "SonarQube global token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sqa_"},
		Pattern: `\b(sqa_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "sqa_dc6646adf494f3dac96a516a4e4f6c1402eea6f6"`,
		},
	},
	{
		ID: "octopus-deploy-api-key", Type: "octopus_deploy_api_key", Name: "Octopus Deploy API key",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"API-"},
		Pattern: `\b(API-[A-Z0-9]{26,32})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "API-UQ3I54CQOAF9Q9AY3XDLTTOZ00C"`,
		},
	},
	{
		ID: "harness-pat", Type: "harness_access_token", Name: "Harness personal/service access token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"pat.", "sat."},
		Pattern: `\b((?:pat|sat)\.[A-Za-z0-9_-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20})`,
		Examples: []string{
			`TOKEN = "pat.HmfbdbSoSRZuzoGu65b30_.aa51163036e9756757871d9f.144bhqccwREGSH6eNLfG"`,
		},
	},
	{
		ID: "prefect-api-key", Type: "prefect_api_key", Name: "Prefect Cloud API key",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"pnu_"},
		Pattern: `\b(pnu_[A-Za-z0-9]{36})`,
		Examples: []string{
			`TOKEN = "pnu_s27kQJuyxdeb1mP9wfQJoxCUO7M4pken5FzL"`,
		},
	},
	{
		ID: "gradle-publish-key", Type: "gradle_plugin_portal_key", Name: "Gradle Plugin Portal publishing key or secret",
		Family: "cicd", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"gradle.publish."},
		Pattern: `gradle\.publish\.(?:key|secret)\s*[=:]\s*(?P<secret>[A-Za-z0-9]{32})`,
		Examples: []string{
			`gradle.publish.key=Gn0waGXAZ1miatk1LDcfKtXsoG7F3QSL`,
			`gradle.publish.secret=5tvwl0p9NGxuvIWvZ7fWXbfUlFEzeTdG`,
		},
	},
	{
		ID: "infracost-api-key", Type: "infracost_api_key", Name: "Infracost API key",
		Family: "cicd", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"ico-"},
		Pattern: `\b(ico-[A-Za-z0-9]{32})`,
		Examples: []string{
			`TOKEN = "ico-N7m8DnUkWmypsjWMoptccV2v8ivV8EJd"`,
		},
	},
	{
		ID: "travis-encrypted-var", Type: "travis_ci_token", Name: "Travis CI API token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"travis_token", "travis_api_token", "TRAVIS_API_TOKEN"},
		Pattern: `(?i)travis_(?:api_)?token["\']?\s*[:=]\s*["\']?(?P<secret>(?-i:[A-Za-z0-9_-]{22}))`,
		Before: 2,
		Examples: []string{
			`TOKEN = "TRAVIS_API_TOKEN=b5KQfCUGtmQ2eOGPLwZN8g"`,
		},
	},
	{
		ID: "jenkins-api-token", Type: "jenkins_api_token", Name: "Jenkins API token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"jenkins"},
		Pattern: `(?i)jenkins[\w.\- ]{0,30}?[\s"\'=:>,]+(?P<secret>11[0-9a-f]{32})`,
		After: 200,
		Examples: []string{
			`TOKEN = "JENKINS_API_TOKEN=117ad132c32e9e813d287ad9f64d4a1675"`,
		},
	},
}
