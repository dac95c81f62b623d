// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

// paymentRules: payment and commerce providers.
var paymentRules = []*rule{
	{
		ID: "stripe-live-secret-key", Type: "stripe_live_secret_key", Name: "Stripe live secret key",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords:   []string{"sk_live_"},
		Pattern:    `\b(sk_live_[0-9a-zA-Z]{24,247})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "sk_live_vM8tVY7VP9as7MEJAgXuriui"`,
			`TOKEN = "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"`,
		},
		NegativeExamples: []string{
			`sk_live_000000000000000000000000`,
		},
	},
	{
		ID: "stripe-live-restricted-key", Type: "stripe_live_restricted_key", Name: "Stripe live restricted key",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords:   []string{"rk_live_"},
		Pattern:    `\b(rk_live_[0-9a-zA-Z]{24,247})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "stripe-test-secret-key", Type: "stripe_test_secret_key", Name: "Stripe test-mode secret key",
		Family: "payment", Severity: SeverityLow, Evidence: evPrefix,
		Keywords:   []string{"sk_test_"},
		Pattern:    `\b(sk_test_[0-9a-zA-Z]{24,247})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "sk_test_AhzSqBKxfYb6KLa3SMqAUGk4IkDyJBsShtOvj54rbMjBVUBwYXbcJHeVPPpzB8Xtl8diXCt2XKVazdBQ5mOnBdkR1cgwk3MOExt"`,
		},
		NegativeExamples: []string{
			`sk_test_4eC39HqLyjWDarjtT1zdp7dc`,
			`sk_test_000000000000000000000000`,
		},
	},
	{
		ID: "stripe-test-restricted-key", Type: "stripe_test_restricted_key", Name: "Stripe test-mode restricted key",
		Family: "payment", Severity: SeverityLow, Evidence: evPrefix,
		Keywords:   []string{"rk_test_"},
		Pattern:    `\b(rk_test_[0-9a-zA-Z]{24,247})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "rk_test_CJSq5zBV45Brnwf1gXokNNb19jHB8YmbnGux3yuI8Fq7cEKRlazrMKldvAxPNSdR6l23m1Wu452fHOcSDW6C5NMRDIMqK2ltehG"`,
		},
	},
	{
		ID: "stripe-webhook-secret", Type: "stripe_webhook_secret", Name: "Stripe webhook signing secret",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"whsec_"},
		Pattern:    `\b(whsec_[A-Za-z0-9+/]{32,64})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "whsec_lPeJcd2B6o6xodohNfswvJtfdjC3s5Hc"`,
		},
	},
	{
		ID: "square-access-token", Type: "square_access_token", Name: "Square access token",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords:   []string{"EAAA"},
		Pattern:    `\b(EAAA[A-Za-z0-9_-]{60})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "EAAA5vO_UeuiSEwkzXfOTUxN9JHviCPlgPj60YcGhWGcPtYukRzMZr-bTYV9h9xD"`,
		},
	},
	{
		ID: "square-legacy-access-token", Type: "square_legacy_access_token", Name: "Square legacy access token",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"sq0atp-"},
		Pattern:  `\b(sq0atp-[0-9A-Za-z_-]{22})`,
		Examples: []string{
			`TOKEN = "sq0atp-vKgb3rwvHGfiOJqNFNt9dK"`,
		},
	},
	{
		ID: "square-oauth-secret", Type: "square_oauth_secret", Name: "Square OAuth application secret",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"sq0csp-"},
		Pattern:  `\b(sq0csp-[0-9A-Za-z_-]{43})`,
		Examples: []string{
			`TOKEN = "sq0csp-5gR7F2VGqJktdu5lpuG4k5y1wRmpfswS8o9J6gvmGSA"`,
		},
	},
	{
		ID: "braintree-access-token", Type: "braintree_access_token", Name: "PayPal Braintree production access token",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"access_token$production$"},
		Pattern:  `\b(access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32})`,
		Examples: []string{
			`TOKEN = "access_token$production$jbbtkqz8sky7zcmb$8153ce7652b99ee176aaeaeb6418e956"`,
		},
	},
	{
		ID: "braintree-sandbox-token", Type: "braintree_sandbox_access_token", Name: "PayPal Braintree sandbox access token",
		Family: "payment", Severity: SeverityLow, Evidence: evPrefix,
		Keywords: []string{"access_token$sandbox$"},
		Pattern:  `\b(access_token\$sandbox\$[0-9a-z]{16}\$[0-9a-f]{32})`,
		Examples: []string{
			`TOKEN = "access_token$sandbox$3y5pb0yywxingokm$f4042b07466d7e765a5848756c2bb4be"`,
		},
	},
	{
		ID: "razorpay-live-key", Type: "razorpay_live_key_id", Name: "Razorpay live key ID",
		Family: "payment", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"rzp_live_"},
		Pattern:  `\b(rzp_live_[A-Za-z0-9]{14})`,
		Examples: []string{
			`TOKEN = "rzp_live_tyBm2kl4qSKCJ4"`,
		},
	},
	{
		ID: "flutterwave-secret-key", Type: "flutterwave_secret_key", Name: "Flutterwave secret key",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"FLWSECK"},
		Pattern:  `\b(FLWSECK(?:_TEST)?-[0-9a-f]{32}-X)`,
		Examples: []string{
			`TOKEN = "FLWSECK-c292a2fe59c86062c3d8105bd910398a-X"`,
			`TOKEN = "FLWSECK_TEST-b66b8dd8e745526d2460ebf092716d1b-X"`,
		},
	},
	{
		ID: "shopify-access-token", Type: "shopify_access_token", Name: "Shopify Admin API access token",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"shpat_"},
		Pattern:  `\b(shpat_[a-fA-F0-9]{32})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "shopify-custom-app-token", Type: "shopify_custom_app_token", Name: "Shopify custom app access token",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"shpca_"},
		Pattern:  `\b(shpca_[a-fA-F0-9]{32})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "shopify-private-app-token", Type: "shopify_private_app_token", Name: "Shopify private app access token",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"shppa_"},
		Pattern:  `\b(shppa_[a-fA-F0-9]{32})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "shopify-shared-secret", Type: "shopify_shared_secret", Name: "Shopify app shared secret",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"shpss_"},
		Pattern:  `\b(shpss_[a-fA-F0-9]{32})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "shippo-api-token", Type: "shippo_api_token", Name: "Shippo API token",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"shippo_"},
		Pattern:  `\b(shippo_(?:live|test)_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "shippo_live_b4f4663886d9144f090255207893fca630ab1191"`,
		},
	},
	{
		ID: "duffel-api-token", Type: "duffel_api_token", Name: "Duffel API token",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"duffel_"},
		Pattern:  `\b(duffel_(?:test|live)_[A-Za-z0-9_=-]{43})`,
		Examples: []string{
			`TOKEN = "duffel_live_DIb6h9q8Thpxe0jLRDNfFoDVI3G42TQ2Md5Pk77tF3c"`,
		},
	},
	{
		ID: "easypost-api-key", Type: "easypost_api_key", Name: "EasyPost API key",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"EZAK", "EZTK"},
		Pattern:  `\b(EZ[AT]K[a-zA-Z0-9]{54})`,
		Examples: []string{
			`TOKEN = "EZAKZVcFgIVAFJPhYBHoQZbIkOlS1RzIbHEawZbgKAZyglxmBbuGGfhe2P"`,
		},
	},
}
