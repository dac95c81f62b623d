// Code written by hand as data; one family per file.

package secretscan

// tokenRules: format-level tokens (JWT, HTTP auth headers) and file-format credentials (.netrc, kubeconfig).
var tokenRules = []*rule{
	{
		ID: "jwt", Type: "json_web_token", Name: "JSON Web Token",
		Family: "token", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"eyJ"},
		Pattern: `\b(?P<secret>eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})`,
		After: 4096,
		Validate: validJWT,
		Examples: []string{
			`Authorization: Bearer eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIdxh82XWv2OeSN8RXFaizmz7jhx9e7qEHeIXvBgXe.Z5XAuiFGMd_woGz9aigK4jVoZfYIgouM9_9OcPmjaptsn1BAMEJn83AOKY_ht-nthQ_2k9tueTa2AfjSouDbJ-`,
		},
		NegativeExamples: []string{
			`eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`,
		},
	},
	{
		ID: "bearer-token-header", Type: "http_bearer_token", Name: "Bearer token in an HTTP Authorization header",
		Family: "token", Severity: SeverityMedium, Evidence: evKeyword,
		Keywords: []string{"bearer"},
		Pattern: `(?i)(?:authorization|auth)["\']?\s*[:=]\s*["\']?bearer\s+(?P<secret>[A-Za-z0-9_.~+/-]{12,1000}=*)`,
		Before: 40,
		After: 1100,
		MinEntropy: 2.5,
		Examples: []string{
			`curl -H "Authorization: Bearer lhd1LPEQDlky_S1I_9FL4xn5GasLSUELeWHNLEpX" https://api.example.org`,
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
		Pattern: `(?i)(?:authorization|auth)["\']?\s*[:=]\s*["\']?basic\s+(?P<secret>[A-Za-z0-9+/]{8,400}={0,2})`,
		Before: 40,
		After: 500,
		Validate: validBasicAuth,
		Examples: []string{
			`Authorization: Basic c3ZjOmx6cUtpaVRTbnJ2U3B2WmI=`,
		},
	},
	{
		ID: "netrc-password", Type: "netrc_password", Name: "Password in a .netrc file",
		Family: "token", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"machine"},
		Pattern: `machine\s+[\w.-]{1,253}\s+login\s+\S{1,128}\s+password\s+(?P<secret>\S{1,256})`,
		After: 600,
		Priority: 1,
		Examples: []string{
			`machine api.example.org login deploy password aFbZF9m6yYSOrM2v4Gyw`,
			`machine api.example.org
  login deploy
  password 6iSngbVsMjvb39n3I6Ie
`,
		},
	},
	{
		ID: "kubeconfig-client-key", Type: "kubernetes_client_key", Name: "Kubernetes kubeconfig client-key-data",
		Family: "token", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"client-key-data"},
		Pattern: `client-key-data:\s*["\']?(?P<secret>[A-Za-z0-9+/=]{64,})`,
		After: 20100,
		Priority: 1,
		Examples: []string{
			`    client-key-data: RlhPwrRbIr+lgHk1qgqRT6klLxzOxGZLXUIaTPwnlo3NT4AzohImYeC9WzvbmGaNZ6Re2tFYHyyPNu9q6xpyqy2Le+oJjvgptL/k9vjllqYJabA3ZAVL97JJ+u6ZvO19rpxerNlX53XdQH0FzXSs2COz2RVuBIvDRcj1PLhHsz5hAw+bM/PO6RoUulLIuoVmKOkC25Hncf0o286CHU+I1mDOiYeZuEPuJfmy4CbMjBN9alcSlqLdFc8FqKd8ABovv+OmSyVO2gmDKLO3srN0si+5TlatHDwz/Mz1Gq+N5WxJJZAUoAALtqzl+3Mr8bm9t5kBRyS6UYI5XIv+Qb5gpvrI5LqezS6L/Gaf0qSxuqQZP+XJoqiSjSUvEd3QnMJLkC3ET+lRFHzsrYYg==`,
		},
	},
	{
		ID: "django-secret-key", Type: "django_secret_key", Name: "Django SECRET_KEY",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"SECRET_KEY"},
		Pattern: `SECRET_KEY\s*=\s*["\'](?P<secret>django-insecure-[^"\'\s]{30,80}|[^"\'\s]{40,80})["\']`,
		Before: 10,
		After: 120,
		MinEntropy: 3.5,
		Priority: 1,
		Examples: []string{
			`SECRET_KEY = 'django-insecure-1!vpjM+6yp5)Pf@1)+K(+B@h*TaQPy21LwBLvPh661=M*b7ltO'`,
			`SECRET_KEY = "50%obx0xdoAKMQPgp0-f2=Vwv9X+cRf2rk9dz&CpXElPBLJ=o3"`,
		},
	},
	{
		ID: "psexec-password", Type: "windows_credential", Name: "Password passed to PsExec / net use",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"psexec"},
		Pattern: `(?i)psexec(?:64)?(?:\.exe)?\b[^\n]{0,200}?\s-p\s+(?P<secret>[^\s-]\S{2,127})`,
		After: 300,
		Examples: []string{
			`PsExec.exe \\host -u CORP\svc -p 5onPjHSWWlaW cmd.exe`,
		},
	},
	{
		ID: "private-key-assignment", Type: "private_key_value", Name: "Private key material assigned to a variable",
		Family: "token", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"private_key", "privatekey", "private-key"},
		Pattern: `(?i)private[_-]?key["\']?\s*(?:[:=]|:=|=>)\s*["\'](?P<secret>(?-i:[A-Za-z0-9+/]{40,600}={0,2}))["\']`,
		Before: 8,
		After: 700,
		MinEntropy: 4.0,
		Examples: []string{
			`PRIVATE_KEY="5o0YsKhd9lQWl+nFgtXhmTvwr0S8+/qlgR+PvNmVDjAkDdR0wKSO1Du2A2DuS1WkZKiu3Cj1B7F5tDCFH4ugswuH=="`,
		},
	},
}
