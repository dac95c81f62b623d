// Code written by hand as data; one family per file.

package secretscan

// genericRules: keyword-named assignments ("password = ...") in .env, YAML, JSON, INI, properties, Terraform, Kubernetes, Dockerfiles and code.
var genericRules = []*rule{
	{
		ID: "generic-password", Type: "password", Name: "Password assigned in code or configuration",
		Family: "generic", Severity: SeverityHigh, Evidence: evGeneric,
		Keywords: []string{"password", "passwd", "pwd", "pass", "passphrase"},
		Assign: &assignSpec{class: assignPassword},
		Priority: 2,
		Examples: []string{
			`DB_PASSWORD=8n0AVsiLWTgr!MUjH`,
			`password: "Zq3!vK9#pL2w"`,
			`<password>Tr0ub4dor&3x</password>`,
			`"password": "8rslRmkPWkAEO8"`,
			`export MYSQL_PASS='uqow2BDhehgq'`,
		},
		NegativeExamples: []string{
			`password = "changeme"`,
			`password: ${DB_PASSWORD}`,
			`password = getPassword()`,
			`password: <your-password>`,
			`password_file = "/run/secrets/db"`,
			`if password == "x":`,
		},
	},
	{
		ID: "generic-secret", Type: "generic_secret", Name: "Secret assigned in code or configuration",
		Family: "generic", Severity: SeverityHigh, Evidence: evGeneric,
		Keywords: []string{"secret"},
		Assign: &assignSpec{class: assignSecret},
		Priority: 1,
		Examples: []string{
			`client_secret = "BrQ6tKGxt3chSYqFgGQcRvD63s2EfNh1"`,
			`JWT_SECRET: uvCIKmt1OY9JDzwPElwKQEOR5qWCvelhNDcVkl1p`,
			`"appSecret": "WF68gytS3Ibfwyk7TkWG9DxQ"`,
		},
		NegativeExamples: []string{
			`secret_name = "prod-db"`,
			`client_secret: your_client_secret_here`,
			`secret = os.environ["SECRET"]`,
		},
	},
	{
		ID: "generic-token", Type: "generic_token", Name: "Token assigned in code or configuration",
		Family: "generic", Severity: SeverityHigh, Evidence: evGeneric,
		Keywords: []string{"token"},
		Assign: &assignSpec{class: assignToken},
		Priority: 1,
		Examples: []string{
			`access_token = "vdNiA8k2pO4JuRyVeMxjuwMRcM4LSfTT334WZVI5"`,
			`SLACKBOT_TOKEN=aEpd2nZw08wbo2bTx1MW1mWsgWxOAG8c`,
			`authToken: "106e9e6985b4e2e68680e144d0714c444cc3f342"`,
		},
		NegativeExamples: []string{
			`token_type = "bearer"`,
			`max_tokens = 4096`,
			`csrf_token = "231HLfVhsjSN0KKbNyFI0ojtibJI4J9O"`,
			`token = request.headers.get("X-Token")`,
		},
	},
	{
		ID: "generic-api-key", Type: "generic_api_key", Name: "API key assigned in code or configuration",
		Family: "generic", Severity: SeverityHigh, Evidence: evGeneric,
		Keywords: []string{"key"},
		Assign: &assignSpec{class: assignAPIKey},
		Priority: 0,
		Examples: []string{
			`API_KEY = "085c7eefc4f0433ff78338b0d24ab5f7"`,
			`apiKey: "s6FkqC8xAifSjawYaJgUUMAaLvIK2zi3"`,
			`x-api-key: KwRj1A1enjy0CJgc3I0ElYKiLBPynQ08Q9h5W3zN`,
			`MY_SERVICE_KEY=wrECYcFvYdtM8u2BBpPhceRpVS8C3rxM`,
		},
		NegativeExamples: []string{
			`public_key = "jxKB6adD2sVu6vnvInKy1yZ9C5Hiiazy"`,
			`key = "name"`,
			`primary_key = "id"`,
			`api_key_id = "FI0WGCtU8xcdyOl4DUv1OWzuIaabdJNG"`,
			`cache_key = "user:p22ojig7"`,
		},
	},
	{
		ID: "generic-credential", Type: "generic_credential", Name: "Credential assigned in code or configuration",
		Family: "generic", Severity: SeverityMedium, Evidence: evGeneric,
		Keywords: []string{"credential", "creds", "auth"},
		Assign: &assignSpec{class: assignCredential},
		Priority: -1,
		Examples: []string{
			`credentials = "b2KWrtl2y3J6JHEJ3oBtoJtLHsi9qYZJ"`,
			`AUTH=L4Kmr2c9iCn84La9uhxnCNmudqK2Ewq6`,
		},
		NegativeExamples: []string{
			`auth = true`,
			`credentials: "include"`,
		},
	},
}
