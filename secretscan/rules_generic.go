// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

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
			`"password": "HiiazyFI0WGCtU"`,
			`export MYSQL_PASS='8xcdyOl4DUv1'`,
			`DB_PASSWORD=.k7Vq2mXr9Lp`,                             // .env: a leading dot is part of the value
			"user = alice\npassword = open_sesame\n",               // a login: a bare word counts
			"$dbUser = 'svc';  $password = goodspec;",              // PHP, same line
			"username: 'alice'\npassword: 'correct horse battery'", // a passphrase
			"export DB_USER=app\nexport DB_PASSWORD=\"correct horse battery\"",
			"password: 84920417",        // digits in YAML are a literal
			"password = BlueOcean7Tree", // a title-case passphrase
			`{ "password", "Wq8zLp3Nv2Rt" }`,
			"DB_PASSWORD=Kx9||mP2vL", // NAME=value is a literal, not an expression
			"DB_PASSWORD=p4ss==w0rdX",
			"password=Wq8zLp3.key",
		},
		NegativeExamples: []string{
			`password = "changeme"`,
			`password: ${DB_PASSWORD}`,
			`password = getPassword()`,
			`password: <your-password>`,
			`password_file = "/run/secrets/db"`,
			`if password == "x":`,
			`PASSWORD_FILE=.secrets/db1`,
			`password = .k7Vq2mXr9Lp`,
			"password = open_sesame\n",                                    // no user beside it: a variable
			"username: \"Nom d'utilisateur\"\npassword: \"Mot de passe\"", // a translation
			"setuser = 1\npassword = hashed_value",
			"X_PWF_FILES = 0x1000 // pwd.h:145:1:",
			"const NTE_INCORRECT_PASSWORD = -2146893773",                               // a numeric constant
			`"PGSSLPASSWORD":        "sslpassword",`,                                   // part of its own name
			"this._username=s._username,this._password=s._password;",                   // a reference, even tight
			`const NCRYPT_PCP_CHANGEPASSWORD_PROPERTY = "PCP_CHANGEPASSWORD"`,          // a constant's name
			`var masterPasswordSeed = "com.lyndir.masterpassword"`,                     // a header's line reference
			"util.Shell(nil, \"rm\", filepath.Join(dir, \"passwd\", \"fgetspent.c\"))", // a file name
			"return h(`input`,{type:`password`,value:e.clientSecret})",                 // "password" is a value here
			"dsn: \"host=db user=app dbname=x\"\nssl-password: certpw",                 // a user inside a string
			"user = bob\nconn_password = \"host=db user=app dbname=x\"",                // settings, not a passphrase
			"ftp->user = \"anonymous\";\nftp->password = \"mirror-bot@\";",             // RFC 1635 anonymous login
		},
	},
	{
		// Prose that states a login: READMEs and setup notes ("the
		// default password for the user 'admin' is 'hunter2'"). The user
		// and the value must both be quoted, so ordinary sentences about
		// passwords stay silent; weak values count, since the text says
		// they are the password.
		ID: "password-in-prose", Type: "password", Name: "Password stated in prose for a named user",
		Family: "generic", Severity: SeverityMedium, Evidence: evGeneric,
		Keywords: []string{"password for", "password of"},
		Pattern:  `(?i)\bpassword\s+(?:for|of)\s+(?:the\s+)?(?:user|account|login)\s+["'](?P<user>[\w.@-]{1,64})["']\s+(?:is|was)\s+["'](?P<secret>[^"'\s]{3,64})["']`,
		Before:   16,
		After:    200,
		MinLen:   3,
		Examples: []string{
			"The default password for the user \"svc-backup\" is \"k3rnel-pan1c\".",
			"2. Check that the password for user 'postgres' is 'admin' or edit .env.",
		},
		NegativeExamples: []string{
			"The password for the user 'admin' is '<your password>'.",
			"Set the password for user 'postgres' is required before first start.",
			"the password for user 'postgres' is 'postgres'",
		},
	},
	{
		ID: "generic-secret", Type: "generic_secret", Name: "Secret assigned in code or configuration",
		Family: "generic", Severity: SeverityHigh, Evidence: evGeneric,
		Keywords: []string{"secret"},
		Assign:   &assignSpec{class: assignSecret},
		Priority: 1,
		Examples: []string{
			`client_secret = "OWzuIaabdJNGFSfdSE98p6Xb2KWrtl2y"`,
			`JWT_SECRET: 3J6JHEJ3oBtoJtLHsi9qYZJL4Kmr2c9iCn84La9u`,
			`"appSecret": "hxnCNmudqK2Ewq6y1hYVgJbS"`,
		},
		NegativeExamples: []string{
			`secret_name = "prod-db"`,
			`client_secret: your_client_secret_here`,
			` *     clientSecret: 'my-idp-secret',`,
			`secret = os.environ["SECRET"]`,
			`AWS_SECRET_ACCESS_KEY=0f3a9c1e7b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c`, // 42 hex: not an AWS secret
			`secret_access_key = 'Kd8fQ2nW5xZ1+RT'`,                            // 15 characters
		},
	},
	{
		ID: "generic-token", Type: "generic_token", Name: "Token assigned in code or configuration",
		Family: "generic", Severity: SeverityHigh, Evidence: evGeneric,
		Keywords: []string{"token"},
		Assign:   &assignSpec{class: assignToken},
		Priority: 1,
		Examples: []string{
			`access_token = "HmO7ZNksc85keGIBEWBVM7Nay1QvpEw6lJ0PpEkz"`,
			`os.environ.setdefault("API_TOKEN", "Qm7ZLksc85keGIBEWBVM7Nay1QvpEw6lJ0PpEkz")`, // an argument pair
			`{"api_token", "Xk82mQ9xV4pL7nR3tW6yB1cE5hJ0aZuSd2Fq"},`,                        // a table row
			`token: "WhiteHorseKnightDawn"`,
			`SLACKBOT_TOKEN=zu4FdWs8pLHVUwD2yeyz79ysJwVzvwen`,
			`authToken: "e10873f8b2232bc7c822c770f9e0ccf622805508"`,
		},
		NegativeExamples: []string{
			`token_type = "bearer"`,
			`max_tokens = 4096`,
			`csrf_token = "qwEZmDabOLkEfP0YD52qjgQL4cjx1XRa"`,
			`token = request.headers.get("X-Token")`,
			"t.error===`invalid_token`?`invalid_token`:e===401?`token_expired`:`unauthorized`",                          // an expression
			"PersonalAccessTokenRequest *PersonalAccessTokenRequest `json:\"personal_access_token_request,omitempty\"`", // a struct tag
			`TokenTypeIDToken = "urn:ietf:params:oauth:token-type:id_token"`,                                            // a URN
			`if (lastSignificantToken === "?NonExpressionParenKeyword") state = 1`,
			"[REDACTED:github_personal_access_token] 000000789AB12CXY", // a redaction marker
		},
	},
	{
		ID: "generic-api-key", Type: "generic_api_key", Name: "API key assigned in code or configuration",
		Family: "generic", Severity: SeverityHigh, Evidence: evGeneric,
		Keywords: []string{"key", "access", "private"},
		Assign:   &assignSpec{class: assignAPIKey},
		Priority: 0,
		Examples: []string{
			`API_KEY = "850b875fb235e028a3676e34a380401a"`,
			`apiKey: "5YShhjyYQA5dUtKaybqxNLFQQLCrK4UZ"`,
			`x-api-key: YFFOgJfZfa7a04g1kUWQF5KkhsGgDsAfIEGjhsDD`,
			`MY_SERVICE_KEY=ksLTfzBrHNw2kAaxP86tc5iS8ZpV9N0H`,
			`private_key: 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318`, // hex, wider than a constant
			`FIREBASE_KEY_JSON=Kq82mV9xW4pL7nR3tZ6yB1cE5hJ0aXuSd2Fq`,
			`CLIENT_KEY=Xk82*mQ9xV4pL7nR3tW6yB1cE5hJ`,
		},
		NegativeExamples: []string{
			`public_key = "Ot10uBwGl4L5VrtkiNTBSyQEuTgmdTtq"`,
			`key = "name"`,
			`primary_key = "id"`,
			`api_key_id = "V6CcvpCsX2tENFN4tiOKe3FAYhKuYvIS"`,
			`cache_key = "user:srv6aoao"`,
			`apiKey=px-api-k3m9q2w7-x5v8-z1r4-t6y0-n8p3s5u7w9y2`,      // UUID-shaped, not hexadecimal
			`licenseKey=a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8NRAL`,     // New Relic's suffix on a non-hex body
			`KeyExchangeDH16SHA512 = "diffie-hellman-group16-sha512"`, // "key" is not what the name holds
			`# define OSSL_PROV_PARAM_X963KDF_KEY_CHECK "x963kdf-key-check"`,
			`private _authorizationServerUrl2Option?;`,                      // a TypeScript declaration
			`[CLIENT_CAPABILITIES_META_KEY]: ClientCapabilities2026Schema,`, // a code reference
			`const NCRYPT_ASSOCIATED_ECDH_KEY = "SmartCardAssociatedECDHKey"`,
			`const szKEY_CRYPTOAPI_PRIVATE_KEY_OPTIONS = "Software\\Policies\\Microsoft\\Cryptography"`, // a registry path
			`} else if (key === "dangerouslySetInnerHTML" && value) {`,
			`const key = "base64-encoded-public-key";`, // words about a key
		},
	},
	{
		// A Terraform input variable whose name says credential and whose
		// default holds the value: the default is committed with the code.
		ID: "terraform-variable-default", Type: "generic_secret", Name: "Credential as the default of a Terraform variable",
		Family: "generic", Severity: SeverityHigh, Evidence: evGeneric,
		Keywords:   []string{`variable "`},
		Pattern:    `(?s)variable "[\w-]+"\s*\{[^{}]*?\bdefault\s*=\s*"(?P<secret>[^"\s$]+)"`,
		Pre:        tfCredentialVariable,
		Before:     2,
		After:      500,
		MinLen:     12,
		MaxLen:     256,
		MinEntropy: 3.0,
		Examples: []string{
			"variable \"ops_api_token\" {\n  type    = string\n  default = \"3Tq0bAxhUDMQakqnftbWu1oGAxDLPXXYe6kRyQs6\"\n}\n",
		},
		NegativeExamples: []string{
			"variable \"db_password\" {\n  type      = string\n  sensitive = true\n}\n",
			"variable \"api_key\" {\n  default = \"REPLACE_ME_WITH_KEY\"\n}\n",
			"variable \"region\" {\n  default = \"sFEbKlrck2uXmjFtUbar2W4AxDWPbueF\"\n}\n",
		},
	},
	{
		ID: "generic-credential", Type: "generic_credential", Name: "Credential assigned in code or configuration",
		Family: "generic", Severity: SeverityMedium, Evidence: evGeneric,
		Keywords: []string{"credential", "creds", "auth"},
		Assign:   &assignSpec{class: assignCredential},
		Priority: -1,
		Examples: []string{
			`credentials = "Oj38iHSeRzq6NLWyT7dzOVeGODYmujhM"`,
			`AUTH=LEEolk3QxVq6o4yYbackPWsmimpUhRuV`,
		},
		NegativeExamples: []string{
			`auth = true`,
			`credentials: "include"`,
		},
	},
}
