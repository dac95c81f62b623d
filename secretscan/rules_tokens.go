// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

// tokenRules: format-level tokens (JWT, HTTP auth headers) and file-format credentials (.netrc, kubeconfig).
var tokenRules = []*rule{
	{
		ID: "jwt", Type: "json_web_token", Name: "JSON Web Token",
		Family: "token", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"eyJ"},
		Pattern:  `\b(?P<secret>eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})`,
		After:    4096,
		Validate: validJWT,
		Examples: []string{
			`Authorization: Bearer eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIRe2tFYHyyPNu9q6xpyqy2Le-oJjvgptL_k9vjllq.YJabA3ZAVL97JJ-u6ZvO19rpxerNlX53XdQH0FzXSs2COz2RVuBIvDRcj1PLhHsz5hAw-bM_PO6RoUulLIuoVm`,
		},
		NegativeExamples: []string{
			`eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`,
		},
	},
	{
		ID: "bearer-token-header", Type: "http_bearer_token", Name: "Bearer token in an HTTP Authorization header",
		Family: "token", Severity: SeverityMedium, Evidence: evKeyword,
		Keywords:   []string{"bearer"},
		Pattern:    `(?i)(?:authorization|auth)["\']?\s*[:=]\s*["\']?bearer\s+(?P<secret>[A-Za-z0-9_.~+/-]{12,1000}=*)`,
		Before:     40,
		After:      1100,
		MinEntropy: 2.5,
		Examples: []string{
			`curl -H "Authorization: Bearer KOkC25Hncf0o286CHU-I1mDOiYeZuEPuJfmy4CbM" https://api.example.org`,
		},
		NegativeExamples: []string{
			`Authorization: Bearer <token>`,
			`Authorization: Bearer $TOKEN`,
		},
	},
	{
		ID: "basic-auth-header", Type: "http_basic_auth", Name: "Basic credentials in an HTTP Authorization header",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"basic"},
		Pattern:  `(?i)(?:authorization|auth)["\']?\s*[:=]\s*["\']?basic\s+(?P<secret>[A-Za-z0-9+/]{8,400}={0,2})`,
		Before:   40,
		After:    500,
		Validate: validBasicAuth,
		Examples: []string{
			`Authorization: Basic c3ZjOlpNNUJ1NGR5SVdOdEpFb04=`,
		},
	},
	{
		ID: "netrc-password", Type: "netrc_password", Name: "Password in a .netrc file",
		Family: "token", Severity: SeverityHigh, Evidence: evStructure,
		Keywords:  []string{"machine"},
		Pattern:   `machine\s+[\w.-]{1,253}\s+login\s+\S{1,128}\s+password\s+(?P<secret>\S{1,256})`,
		After:     600,
		Priority:  1,
		Multiline: true,
		Examples: []string{
			`machine api.example.org login deploy password QApJ7J47QnAXJt45vWrg`,
			`machine api.example.org
  login deploy
  password 5huXPnlWSsSoVfmhciCO
`,
		},
	},
	{
		ID: "kubeconfig-client-key", Type: "kubernetes_client_key", Name: "Kubernetes kubeconfig client-key-data",
		Family: "token", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"client-key-data"},
		Pattern:  `client-key-data:\s*["\']?(?P<secret>[A-Za-z0-9+/=]{64,})`,
		After:    20100,
		Priority: 1,
		Examples: []string{
			`    client-key-data: SyVO2gmDKLO3srN0si+5TlatHDwz/Mz1Gq+N5WxJJZAUoAALtqzl+3Mr8bm9t5kBRyS6UYI5XIv+Qb5gpvrI5LqezS6L/Gaf0qSxuqQZP+XJoqiSjSUvEd3QnMJLkC3ET+lRFHzsrYYg1+vpjM6yp5Pf/1KB/hTaQPy21LwBLvPh661Mb7ltO50obx0xdoAKMQPgp0f2Vwv9XcRf2rk9dzCpXElPBLJo3BpYv5o0YsKhd9lQWl+nFgtXhmTvwr0S8+/qlgR+PvNmVDjAkDdR0wKSO1Du2A2DuS1WkZKiu3Cj1B7F5tDCFH4ugswuHGsoLTnH5NQNrDeW6vUXqtQD75Sk3Pbe3mIdQoTfqTntBPkR/3UCGv7aEwXIQqkKG4n9ds+jitj8hvwx779+==`,
		},
	},
	{
		ID: "django-secret-key", Type: "django_secret_key", Name: "Django SECRET_KEY",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords:   []string{"SECRET_KEY"},
		Pattern:    `SECRET_KEY\s*=\s*["\'](?P<secret>django-insecure-[^"\'\s]{30,80}|[^"\'\s]{40,80})["\']`,
		Before:     10,
		After:      120,
		MinEntropy: 3.5,
		Priority:   1,
		Examples: []string{
			`SECRET_KEY = 'django-insecure-bB=T4_0H4)x2j%2##mKWG^6(2R(ub-uQbWLk+Hv8u^P*%WPZ2x'`,
			`SECRET_KEY = "^4JJ_s1&V6Ho)IHHopCzEI9463Yg!ul0efkVa0cb8cJn2YLpUw"`,
		},
	},
	{
		ID: "psexec-password", Type: "windows_credential", Name: "Password passed to PsExec / net use",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"psexec"},
		Pattern:  `(?i)psexec(?:64)?(?:\.exe)?\b[^\n]{0,200}?\s-p\s+(?P<secret>[^\s-]\S{2,127})`,
		After:    300,
		Examples: []string{
			`PsExec.exe \\host -u CORP\svc -p bTUZOp9V1qs8 cmd.exe`,
		},
	},
	{
		ID: "private-key-assignment", Type: "private_key_value", Name: "Private key material assigned to a variable",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords:   []string{"private_key", "privatekey", "private-key"},
		Pattern:    `(?i)private[_-]?key["\']?\s*(?:[:=]|:=|=>)\s*["\'](?P<secret>(?-i:[A-Za-z0-9+/]{40,600}={0,2}))["\']`,
		Before:     8,
		After:      700,
		MinEntropy: 4.0,
		Examples: []string{
			`PRIVATE_KEY="EEyySYDDXj3r8GflNzSCVPHLvdzzjKhbe56ft3K31Pd7b1TegMoq0GqIA6kSOVjG4MNps/vHP7ifNDR4/Cae3IOB=="`,
		},
	},
	{
		ID: "curl-user-password", Type: "curl_basic_auth", Name: "Username and password passed to curl -u / --user",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"curl"},
		Pattern:  `(?i)\bcurl\b(?:[^\n]|\\\r?\n){0,400}?\s(?:-u|--user)\s+["\']?(?P<user>[^:\s"\'$]{1,128}):(?P<secret>[^\s"\'@$]{3,256})`,
		After:    600,
		Examples: []string{
			`curl -u deploy:lxz1o5aj91ncixSF4ILp https://api.example.org/v1/status`,
			`curl -X POST \
  --user ci-bot:FvD7FEwibq3YMwntU5Mn1fx4 \
  https://ci.example.org/hook`,
		},
		NegativeExamples: []string{
			`curl -u $USER:$PASS https://x`,
			`curl -u user:password https://x`,
		},
	},
	{
		ID: "dotnet-network-credential", Type: "windows_credential", Name: ".NET NetworkCredential / DirectoryEntry with a literal password",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords:  []string{"NetworkCredential(", "DirectoryEntry("},
		Pattern:   `(?:NetworkCredential|DirectoryEntry)\(\s*(?:"[^"\n]{0,200}"\s*,\s*){1,2}"(?P<secret>[^"\n]{4,128})"`,
		Before:    4,
		After:     500,
		Multiline: true,
		Examples: []string{
			`new NetworkCredential("svc@corp.example", "upCJF5xZOEklDas6");`,
			`new DirectoryEntry("LDAP://dc1", "CORP\\svc", "f3h2bVEmjfXuRJ");`,
		},
	},
	{
		ID: "xml-appsetting-secret", Type: "config_setting_secret", Name: "Secret in an XML appSettings key/value pair",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"\" value=\""},
		Pattern:  `(?i)key\s*=\s*"[\w.:-]{0,60}(?:password|secret|apikey|api_key|token)[\w.:-]{0,40}"\s+value\s*=\s*"(?P<secret>[^"\s]{6,256})"`,
		Before:   120,
		After:    300,
		Examples: []string{
			`<add key="SmtpPassword" value="gE4mYX6IQvMPw2"/>`,
		},
		NegativeExamples: []string{
			`<add key="PasswordPolicy" value="" />`,
		},
	},
	{
		ID: "okta-ssws-header", Type: "okta_api_token", Name: "Okta API token in an SSWS Authorization header",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"SSWS "},
		Pattern:  `SSWS\s+(?P<secret>00[A-Za-z0-9_-]{40})`,
		After:    60,
		Examples: []string{
			`Authorization: SSWS 00V-IS4olQ-bZPGy8BDajuMBytOKgqEe_wAg4plaj0`,
		},
	},
	{
		ID: "vmware-powercli-password", Type: "vmware_password", Name: "Password passed to VMware PowerCLI Connect-VIServer",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"connect-viserver"},
		Pattern:  `(?i)connect-viserver\b[^\n]{0,300}?\s-password\s+["\']?(?P<secret>[^\s"\'$]{4,128})`,
		After:    400,
		Examples: []string{
			`Connect-VIServer -Server vc01 -User admin@vsphere.local -Password 5fzL6c5KuAtk!`,
		},
	},
	{
		ID: "truenas-api-key", Type: "truenas_api_key", Name: "TrueNAS API key in a login_with_api_key call",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords:  []string{"login_with_api_key"},
		Pattern:   `login_with_api_key"[\s,]*"params"\s*:\s*\[\s*"(?P<secret>\d{1,4}-[A-Za-z0-9]{64})"`,
		After:     200,
		Multiline: true,
		Examples: []string{
			`{"msg":"method", "method":"auth.login_with_api_key", "params":["7-6m2lrGO4IwpsyUTurMY94dJ2dglz1l28LZlvdXKxE3KM37lmQUFpdg1C8tjDkmvh"]}`,
		},
	},
	{
		ID: "thingsboard-url-token", Type: "thingsboard_access_token", Name: "ThingsBoard device token in an API URL",
		Family: "token", Severity: SeverityMedium, Evidence: evKeyword,
		Keywords: []string{"thingsboard"},
		Pattern:  `(?i)thingsboard[\w.:-]{0,60}/api/v1/(?P<secret>(?-i:[A-Za-z0-9]{20}))/`,
		After:    200,
		Examples: []string{
			`https://thingsboard.cloud/api/v1/jwq5r4gwpgfvcjd6a9kl/telemetry`,
		},
	},
	{
		ID: "vault-unseal-key", Type: "vault_unseal_key", Name: "HashiCorp Vault unseal key",
		Family: "token", Severity: SeverityCritical, Evidence: evKeyword,
		Keywords:   []string{"unseal"},
		Pattern:    `(?i)unseal(?:\s+key\s+\d{1,2}:)?\s+(?P<secret>(?-i:[A-Za-z0-9+/]{43,44}={0,1}))`,
		After:      80,
		MinEntropy: 4.0,
		Examples: []string{
			`Unseal Key 1: rIc0gOcXky3/CuLHOmbU5DdvJX4zLYS7VLGjGSqDnWer`,
			`vault operator unseal z+PITAyTpR6VkjvxSex6ZAvGoi5XVR5bajrS84sWqcV3`,
		},
	},
	{
		ID: "twitch-stream-key", Type: "twitch_stream_key", Name: "Twitch stream key",
		Family: "token", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"live_"},
		Pattern:  `\b(?P<secret>live_\d{6,12}_[A-Za-z0-9]{30})\b`,
		Examples: []string{
			`rtmp://live.twitch.tv/app/live_466563315_N91ISXB0v0xexaYlp22faCIKkZXiV4`,
		},
	},
	{
		ID: "codeclimate-reporter-id", Type: "codeclimate_reporter_token", Name: "Code Climate test reporter ID / repo token",
		Family: "token", Severity: SeverityMedium, Evidence: evKeyword,
		Keywords: []string{"CC_TEST_REPORTER_ID", "CODECLIMATE_REPO_TOKEN"},
		Pattern:  `(?i)(?:cc_test_reporter_id|codeclimate_repo_token)["\']?\s*[:=]\s*["\']?(?P<secret>(?-i:[a-f0-9]{64}))`,
		After:    100,
		Examples: []string{
			`CC_TEST_REPORTER_ID: 02a52fb704d125e74e561ae9e1eb4a66b73f44216e0a8e5cf3ac95f0bf7803e8`,
		},
	},
	{
		ID: "mysql-cli-password", Type: "database_cli_password", Name: "Password on a mysql / mysqldump command line (-pPASSWORD)",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords:   []string{"mysql"},
		Pattern:    `(?i)\bmysql(?:dump|admin|import|sh)?(?:\.exe)?\b[^\n|;&]{0,200}?\s(?:-p|--password=)(?P<secret>[^\s\'"$-][^\s\'"]{3,127})`,
		After:      300,
		NoBoundary: true,
		Examples: []string{
			`mysql -u root -pcc0hteN6VyEQ app < dump.sql`,
			`mysqldump --user=app --password=ex53XxXZ7VMKiQ shop`,
		},
		NegativeExamples: []string{
			`mysql -u root -p app`,
			`mysql -u root -p$MYSQL_PWD app`,
		},
	},
	{
		ID: "sshpass-password", Type: "ssh_password", Name: "Password passed to sshpass -p",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"sshpass"},
		Pattern:  `\bsshpass\s+-p\s*["\']?(?P<secret>[^\s"\'$][^\s"\']{3,127})`,
		After:    200,
		Examples: []string{
			`sshpass -p 0ebXRz5FZmgO ssh deploy@host`,
			`sshpass -p '973RU38UYQ!' scp a b:`,
		},
	},
}
