// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

// identifierRules: identifiers that are sensitive but not secrets (ARNs, bucket names, account IDs, usernames). Reported as low unless Options.SkipIdentifiers.
var identifierRules = []*rule{
	{
		ID: "aws-arn", Type: "aws_arn", Name: "AWS ARN (identifier)",
		Family: FamilyIdentifier, Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{"arn:aws"},
		Pattern:          `(?P<secret>arn:aws[\w-]{0,12}:[a-z0-9-]{1,30}:[a-z0-9-]{0,20}:(?:\d{12})?:[^\s"\'<>,\]\)]{1,256})`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`"Resource": "arn:aws:s3:::corp-sz09p1yf/*"`,
		},
	},
	{
		ID: "aws-account-id", Type: "aws_account_id", Name: "AWS account ID (identifier)",
		Family: FamilyIdentifier, Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{"account_id", "accountid"},
		Pattern:          `(?i)(?:aws)?_?account_?id["\']?\s*[:=]\s*["\']?(?P<secret>\d{12})\b`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`aws_account_id=808180284310`,
		},
	},
	{
		ID: "s3-bucket-url", Type: "s3_bucket", Name: "Amazon S3 bucket host name or URL (identifier)",
		Family: FamilyIdentifier, Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{"amazonaws.com"},
		Pattern:          `(?P<secret>(?:[a-z0-9.-]{3,63}\.s3[.-](?:[a-z0-9-]{1,30}\.)?amazonaws\.com|s3[.-](?:[a-z0-9-]{1,30}\.)?amazonaws\.com/[a-z0-9.-]{3,63}))`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`https://corp-8br4nk.s3.amazonaws.com/x`,
		},
	},
	{
		ID: "gcs-bucket-url", Type: "gcs_bucket", Name: "Google Cloud Storage bucket host or URL (identifier)",
		Family: FamilyIdentifier, Severity: SeverityLow, Evidence: evPrefix,
		Keywords: []string{"storage.googleapis.com"},
		// The JSON API's paths name the bucket after a fixed prefix.
		Pattern:          `(?P<secret>[a-z0-9._-]{1,222}\.storage\.googleapis\.com|storage\.googleapis\.com/(?:projects/_/buckets/|(?:upload/|download/)?storage/v1/b/)?[a-z0-9._-]{3,63})`,
		Exclude:          gcsAPIPath,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`https://storage.googleapis.com/corp-f57ec3/o`,
			`"//storage.googleapis.com/projects/_/buckets/corp-f57ec3"`,
		},
		NegativeExamples: []string{
			`// the resource name: //storage.googleapis.com/projects/_/buckets/`,
		},
	},
	{
		ID: "shopify-domain", Type: "shopify_domain", Name: "Shopify store domain (identifier)",
		Family: FamilyIdentifier, Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{".myshopify.com"},
		Pattern:          `(?P<secret>[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com)`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`store-2psv5p.myshopify.com`,
		},
	},
	{
		ID: "react-app-username", Type: "app_username", Name: "Username in a REACT_APP_ environment variable (identifier)",
		Family: FamilyIdentifier, Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{"react_app_"},
		Pattern:          `(?i)react_app_[\w]{0,30}?user(?:name)?\s*=\s*["\']?(?P<secret>[^\s"\'#$][^\s"\'#]{2,63})`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`REACT_APP_AUTH_USERNAME=lw9zx9ty`,
		},
	},
	{
		ID: "age-recipient", Type: "age_public_key", Name: "age recipient (public key, identifier)",
		Family: FamilyIdentifier, Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{"age1"},
		Pattern:          `\b(?P<secret>age1[02-9ac-hj-np-z]{58})\b`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`age12hn5vqvxhh98y0dzstk8h0svx63uek9m29v59syx9dpprtnhz9686ywf2z`,
		},
	},
}
