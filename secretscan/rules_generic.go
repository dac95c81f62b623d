// Code written by hand as data; one family per file.

package secretscan

// genericRules: keyword-named assignments ("password = ...") in .env, YAML, JSON, INI, properties, Terraform, Kubernetes, Dockerfiles and code.
var genericRules = []*rule{
	{
		ID: "generic-password", Type: "password", Name: "Password assigned in code or configuration",
		Family: "generic", Severity: SeverityHigh, Evidence: evGeneric,
		Keywords: []string{"password", "passwd", "pwd", "pass", "passphrase"},
		Assign:   &assignSpec{class: assignPassword},
		Priority: 2,
		Examples: []string{
			`DB_PASSWORD=8n0AVsiLWTgr!MUjH`,
			`password: "Zq3!vK9#pL2w"`,
			`<password>Tr0ub4dor&3x</password>`,
			`"password": "8KowNBUdkEs6Fk"`,
			`export MYSQL_PASS='qC8xAifSjawY'`,
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
		Assign:   &assignSpec{class: assignSecret},
		Priority: 1,
		Examples: []string{
			`client_secret = "aJgUUMAaLvIK2zi3KwRj1A1enjy0CJgc"`,
			`JWT_SECRET: 3I0ElYKiLBPynQ08Q9h5W3zNwrECYcFvYdtM8u2B`,
			`"appSecret": "BpPhceRpVS8C3rxMjxKB6adD"`,
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
		Assign:   &assignSpec{class: assignToken},
		Priority: 1,
		Examples: []string{
			`access_token = "2sVu6vnvInKy1yZ9C5HiiazyFI0WGCtU8xcdyOl4"`,
			`SLACKBOT_TOKEN=DUv1OWzuIaabdJNGFSfdSE98p6Xb2KWr`,
			`authToken: "11939879159a849a2a14642a46ba1730f9e8c3b4"`,
		},
		NegativeExamples: []string{
			`token_type = "bearer"`,
			`max_tokens = 4096`,
			`csrf_token = "5keGIBEWBVM7Nay1QvpEw6lJ0PpEkzzu"`,
			`token = request.headers.get("X-Token")`,
		},
	},
	{
		ID: "generic-api-key", Type: "generic_api_key", Name: "API key assigned in code or configuration",
		Family: "generic", Severity: SeverityHigh, Evidence: evGeneric,
		Keywords: []string{"key", "access", "private"},
		Assign:   &assignSpec{class: assignAPIKey},
		Priority: 0,
		Examples: []string{
			`API_KEY = "274a8ff61349fe10873f8b2232bc7c82"`,
			`apiKey: "4nOsaEyF0VIonT1oPXOUxuD55ocG1AB1"`,
			`x-api-key: GqwEZmDabOLkEfP0YD52qjgQL4cjx1XRaHAvu0dY`,
			`MY_SERVICE_KEY=byXxuMHEbBUN47lBmS05YhHK6wapCFCT`,
		},
		NegativeExamples: []string{
			`public_key = "7i8bL6uG0z91sb3gL5YShhjyYQA5dUtK"`,
			`key = "name"`,
			`primary_key = "id"`,
			`api_key_id = "aybqxNLFQQLCrK4UZYFFOgJfZfa7a04g"`,
			`cache_key = "user:b460pfuq"`,
		},
	},
	{
		ID: "generic-credential", Type: "generic_credential", Name: "Credential assigned in code or configuration",
		Family: "generic", Severity: SeverityMedium, Evidence: evGeneric,
		Keywords: []string{"credential", "creds", "auth"},
		Assign:   &assignSpec{class: assignCredential},
		Priority: -1,
		Examples: []string{
			`credentials = "gDsAfIEGjhsDDksLTfzBrHNw2kAaxP86"`,
			`AUTH=tc5iS8ZpV9N0HOt10uBwGl4L5VrtkiNT`,
		},
		NegativeExamples: []string{
			`auth = true`,
			`credentials: "include"`,
		},
	},
}
