// Code written by hand as data; one family per file.

package secretscan

// identifierRules: identifiers that are sensitive but not secrets (ARNs, bucket names, account IDs, usernames). Reported only with Options.Identifiers.
var identifierRules = []*rule{
	{
		ID: "aws-arn", Type: "aws_arn", Name: "AWS ARN (identifier)",
		Family: "identifier", Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{"arn:aws"},
		Pattern:          `(?P<secret>arn:aws[\w-]{0,12}:[a-z0-9-]{1,30}:[a-z0-9-]{0,20}:(?:\d{12})?:[^\s"\'<>,\]\)]{1,256})`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`"Resource": "arn:aws:s3:::corp-e5xpb8i1/*"`,
		},
	},
	{
		ID: "aws-account-id", Type: "aws_account_id", Name: "AWS account ID (identifier)",
		Family: "identifier", Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{"account_id", "accountid"},
		Pattern:          `(?i)(?:aws)?_?account_?id["\']?\s*[:=]\s*["\']?(?P<secret>\d{12})\b`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`aws_account_id=091273279230`,
		},
	},
	{
		ID: "s3-bucket-url", Type: "s3_bucket", Name: "Amazon S3 bucket host name or URL (identifier)",
		Family: "identifier", Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{"amazonaws.com"},
		Pattern:          `(?P<secret>(?:[a-z0-9.-]{3,63}\.s3[.-](?:[a-z0-9-]{1,30}\.)?amazonaws\.com|s3[.-](?:[a-z0-9-]{1,30}\.)?amazonaws\.com/[a-z0-9.-]{3,63}))`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`https://corp-u29t3d.s3.amazonaws.com/x`,
		},
	},
	{
		ID: "gcs-bucket-url", Type: "gcs_bucket", Name: "Google Cloud Storage bucket host or URL (identifier)",
		Family: "identifier", Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{"storage.googleapis.com"},
		Pattern:          `(?P<secret>[a-z0-9._-]{1,222}\.storage\.googleapis\.com|storage\.googleapis\.com/[a-z0-9._-]{3,63})`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`https://storage.googleapis.com/corp-37xiu6/o`,
		},
	},
	{
		ID: "shopify-domain", Type: "shopify_domain", Name: "Shopify store domain (identifier)",
		Family: "identifier", Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{".myshopify.com"},
		Pattern:          `(?P<secret>[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com)`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`store-mnx9og.myshopify.com`,
		},
	},
	{
		ID: "react-app-username", Type: "app_username", Name: "Username in a REACT_APP_ environment variable (identifier)",
		Family: "identifier", Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{"react_app_"},
		Pattern:          `(?i)react_app_[\w]{0,30}?user(?:name)?\s*=\s*["\']?(?P<secret>[^\s"\'#$][^\s"\'#]{2,63})`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`REACT_APP_AUTH_USERNAME=4jjfdn39`,
		},
	},
	{
		ID: "age-recipient", Type: "age_public_key", Name: "age recipient (public key, identifier)",
		Family: "identifier", Severity: SeverityLow, Evidence: evPrefix,
		Keywords:         []string{"age1"},
		Pattern:          `\b(?P<secret>age1[02-9ac-hj-np-z]{58})\b`,
		Before:           240,
		KeepPlaceholders: true,
		Identifier:       true,
		Examples: []string{
			`age1p5sute7x5ej2lqklw3p8a3je60mc9ryzts08zp37d29lyzau0j4l0tkehn`,
		},
	},
}
