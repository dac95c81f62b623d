// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

// cicdRules: CI/CD and infrastructure tooling.
var cicdRules = []*rule{
	{
		ID: "circleci-personal-token", Type: "circleci_personal_token", Name: "CircleCI personal API token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"CCIPAT_"},
		Pattern:  `\b(CCIPAT_[A-Za-z0-9]{22}_[a-z0-9]{40})`,
		Examples: []string{
			`TOKEN = "CCIPAT_Ni4EBwaPpR7LtcJLWj2OgW_1afed8f58938bc30acb18145015630fd32d5910c"`,
		},
	},
	{
		ID: "circleci-project-token", Type: "circleci_project_token", Name: "CircleCI project API token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"CCIPRJ_"},
		Pattern:  `\b(CCIPRJ_[A-Za-z0-9]{22}_[a-z0-9]{40})`,
		Examples: []string{
			`TOKEN = "CCIPRJ_PS2ZarGvPyWaW3sKpy6S3k_fca8fe8df8829ba657d00d2545c60f8c72e5123e"`,
		},
	},
	{
		ID: "buildkite-agent-token", Type: "buildkite_user_token", Name: "Buildkite API access token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"bkua_"},
		Pattern:  `\b(bkua_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "bkua_7cde31b463c5dc63282d4709a816be41f36f46db"`,
		},
	},
	{
		ID: "teamcity-token", Type: "teamcity_access_token", Name: "JetBrains TeamCity access token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"eyJ0eXAiOiAiVENWMiJ9"},
		Pattern:  `\b(eyJ0eXAiOiAiVENWMiJ9\.[A-Za-z0-9_-]{36}\.[A-Za-z0-9_-]{48})`,
		Priority: 1,
		Examples: []string{
			`TOKEN = "eyJ0eXAiOiAiVENWMiJ9.tgc211d8jIGxJsSOwAWfYGDoOHBfjkuErdTp.YC2jVosIVgJYksKc7G4S3Rv2tZtlJICwowuyQjwsoPRJRgr-"`,
		},
	},
	{
		ID: "sonarqube-user-token", Type: "sonarqube_user_token", Name: "SonarQube user token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"squ_"},
		Pattern:  `\b(squ_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "squ_494f3dac96a516a4e4f6c1402eea6f6a8e4ff187"`,
		},
	},
	{
		ID: "sonarqube-project-token", Type: "sonarqube_project_token", Name: "SonarQube project token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sqp_"},
		Pattern:  `\b(sqp_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "sqp_0280ceb15997cdd14ca9997c768efc4e11900faa"`,
		},
	},
	{
		ID: "sonarqube-global-token", Type: "sonarqube_global_token", Name: "SonarQube global token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sqa_"},
		Pattern:  `\b(sqa_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "sqa_51163036e9756757871d9f022d78e83ba813d90c"`,
		},
	},
	{
		ID: "octopus-deploy-api-key", Type: "octopus_deploy_api_key", Name: "Octopus Deploy API key",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"API-"},
		Pattern:    `\b(API-[A-Z0-9]{26,32})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "API-J0TM4YHWEFPVQAQ7K9BBVNU7QHP"`,
		},
	},
	{
		ID: "harness-pat", Type: "harness_access_token", Name: "Harness personal/service access token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"pat.", "sat."},
		Pattern:  `\b((?:pat|sat)\.[A-Za-z0-9_-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20})`,
		Examples: []string{
			`TOKEN = "pat.7ruhA0JlWaFyUSxXlEGQzj.f14f4792ad6f8d1c8cab47ad.2X74krZankmPrwk65qaY"`,
		},
	},
	{
		ID: "prefect-api-key", Type: "prefect_api_key", Name: "Prefect Cloud API key",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"pnu_"},
		Pattern:  `\b(pnu_[A-Za-z0-9]{36})`,
		Examples: []string{
			`TOKEN = "pnu_SJTqG37yQfaox5gjHYuEhLQdJwtgXVC8faan"`,
		},
	},
	{
		ID: "gradle-publish-key", Type: "gradle_plugin_portal_key", Name: "Gradle Plugin Portal publishing key or secret",
		Family: "cicd", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"gradle.publish."},
		Pattern:  `gradle\.publish\.(?:key|secret)\s*[=:]\s*(?P<secret>[A-Za-z0-9]{32})`,
		Examples: []string{
			`gradle.publish.key=R8KX2snhDyEYnBEmQtIoaMuF7mdWIfXW`,
			`gradle.publish.secret=7DaukTJZMKVnGNRIz5OEQBmk6fYy4PJT`,
		},
	},
	{
		ID: "infracost-api-key", Type: "infracost_api_key", Name: "Infracost API key",
		Family: "cicd", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"ico-"},
		Pattern:  `\b(ico-[A-Za-z0-9]{32})`,
		Examples: []string{
			`TOKEN = "ico-NOlgWzOnPaMq0e9lia5KyQIHrqz2D8gC"`,
		},
	},
	{
		ID: "travis-encrypted-var", Type: "travis_ci_token", Name: "Travis CI API token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"travis_token", "travis_api_token", "TRAVIS_API_TOKEN"},
		Pattern:  `(?i)travis_(?:api_)?token["\']?\s*[:=]\s*["\']?(?P<secret>(?-i:[A-Za-z0-9_-]{22}))`,
		Before:   2,
		Examples: []string{
			`TOKEN = "TRAVIS_API_TOKEN=zvIfEadUn1iotDYVBijeaH"`,
		},
	},
	{
		// The Jenkins setup wizard prints a generated admin password (32
		// hex) once, in the console log, before the first login.
		ID: "jenkins-initial-admin-password", Type: "jenkins_initial_admin_password", Name: "Jenkins initial admin password from the setup log",
		Family: "cicd", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords:  []string{"password to proceed to installation"},
		Pattern:   `(?i)password to proceed to installation:?\s{1,16}(?P<secret>(?-i:[0-9a-f]{32}))\b`,
		Before:    8,
		After:     120,
		Multiline: true,
		Examples: []string{
			"Please use the following password to proceed to installation:\n\ne3a739dcfcc033b7154039e320230e91\n\nThis may also be found at: /var/jenkins_home/secrets/initialAdminPassword",
		},
		NegativeExamples: []string{
			"Please use the following password to proceed to installation:\n\n<password>\n",
		},
	},
	{
		// The crumb is Jenkins's CSRF token: 32 hex digits (MD5) before
		// 2.176, 64 (SHA-256) after. It is bound to a session, so it is
		// reported as low; where it appears, a session or API token is
		// usually near.
		ID: "jenkins-crumb", Type: "jenkins_crumb", Name: "Jenkins crumb (CSRF token) in a request header",
		Family: "cicd", Severity: SeverityLow, Evidence: evKeyword,
		Keywords: []string{"jenkins-crumb"},
		Pattern:  `(?i)jenkins-crumb["\']?\s*[:=]\s*["\']?(?P<secret>(?-i:[0-9a-f]{64}|[0-9a-f]{32}))\b`,
		After:    80,
		Examples: []string{
			`curl -X POST "$URL/build" -H 'Jenkins-Crumb:4a7ed9e3c0f1b2d85e6a9c4f7b0d3e21'`,
		},
		NegativeExamples: []string{
			`-H "Jenkins-Crumb: $CRUMB"`,
		},
	},
	{
		ID: "jenkins-api-token", Type: "jenkins_api_token", Name: "Jenkins API token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"jenkins"},
		Pattern:  `(?i)jenkins[\w.\- ]{0,30}?[\s"\'=:>,]+(?P<secret>11[0-9a-f]{32})`,
		After:    200,
		Examples: []string{
			`TOKEN = "JENKINS_API_TOKEN=112132b2386e894abfefdbd68bfed07f76"`,
		},
	},
	{
		ID: "sonar-login-token", Type: "sonarqube_token", Name: "SonarQube token passed as sonar.login / sonar.token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords:   []string{"sonar.login", "sonar.token", "sonarlogin", "sonar_login", "sonartoken", "sonar_token"},
		Pattern:    `(?i)sonar[._]?(?:login|token)["\']?\s*(?:[=:,]|=>)\s*["\']?(?P<secret>(?-i:[a-z0-9_]{40,50}))`,
		After:      80,
		MinEntropy: 3.0,
		Examples: []string{
			`mvn sonar:sonar -Dsonar.login=00ede980638fa62f1263a37ce1a6a59c2e7732ea`,
		},
	},
	{
		ID: "dependency-track-api-key", Type: "dependency_track_api_key", Name: "OWASP Dependency-Track API key",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"odt_"},
		Pattern:    `\b(odt_[A-Za-z0-9]{32,40})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "odt_P01jDPu7jD3TMdxKEhStRVf5Dp3gbUTQ"`,
		},
	},
	{
		ID: "nightfall-api-key", Type: "nightfall_api_key", Name: "Nightfall API key",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"NF-"},
		Pattern:    `\b(NF-[A-Za-z0-9]{32})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "NF-kfSr220PJimkxuLmXusfFRsJunPyfJ06"`,
		},
	},
	{
		ID: "teamwork-api-token", Type: "teamwork_api_token", Name: "Teamwork API token",
		Family: "cicd", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"tkn.v1_"},
		Pattern:    `\b(tkn\.v1_[A-Za-z0-9+/=_-]{60,80})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "tkn.v1_kj11PJB+dD6til2pZp/afu55b+BsQAzzhLUfcvMAc/GpnBdoyGPQxyVGraVtjTVHx2Ht="`,
		},
	},
}
