// Code written by hand as data; one family per file.

package secretscan

// paymentRules: payment and commerce providers.
var paymentRules = []*rule{
	{
		ID: "stripe-live-secret-key", Type: "stripe_live_secret_key", Name: "Stripe live secret key",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"sk_live_"},
		Pattern: `\b(sk_live_[0-9a-zA-Z]{24,247})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "sk_live_zsXuIPs5BnNbdUPsWVAaXVxM"`,
			`TOKEN = "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"`,
		},
		NegativeExamples: []string{
			`sk_live_000000000000000000000000`,
		},
	},
	{
		ID: "stripe-live-restricted-key", Type: "stripe_live_restricted_key", Name: "Stripe live restricted key",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"rk_live_"},
		Pattern: `\b(rk_live_[0-9a-zA-Z]{24,247})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "stripe-test-secret-key", Type: "stripe_test_secret_key", Name: "Stripe test-mode secret key",
		Family: "payment", Severity: SeverityLow, Evidence: evPrefix,
		Keywords: []string{"sk_test_"},
		Pattern: `\b(sk_test_[0-9a-zA-Z]{24,247})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "sk_test_JjkPWyfs4nXTFwEW7g4nSiLP01jDPu7jD3TMdxKEhStRVf5Dp3gbUTQkfSr220PJimkxuLmXusfFRsJunPyfJ06xdNargMod0rk"`,
		},
		NegativeExamples: []string{
			`sk_test_4eC39HqLyjWDarjtT1zdp7dc`,
			`sk_test_000000000000000000000000`,
		},
	},
	{
		ID: "stripe-test-restricted-key", Type: "stripe_test_restricted_key", Name: "Stripe test-mode restricted key",
		Family: "payment", Severity: SeverityLow, Evidence: evPrefix,
		Keywords: []string{"rk_test_"},
		Pattern: `\b(rk_test_[0-9a-zA-Z]{24,247})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "rk_test_zl0nC95VJ6clc3tuRebMbNx1PHPylVIKS2Z2acIVpwmg5RDuavor5zUhULZAFKcJhSB5JZoVye8qfiPyZXZO5ZJPUW8CDegTUmF"`,
		},
	},
	{
		ID: "stripe-webhook-secret", Type: "stripe_webhook_secret", Name: "Stripe webhook signing secret",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"whsec_"},
		Pattern: `\b(whsec_[A-Za-z0-9+/]{32,64})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "whsec_8qhQtaIbkFRMEF8T1Yciirp8ztRvM8tV"`,
		},
	},
	{
		ID: "square-access-token", Type: "square_access_token", Name: "Square access token",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"EAAA"},
		Pattern: `\b(EAAA[A-Za-z0-9_-]{60})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "EAAAF_oJEiTcKU6mjyQmVcTz61GBuNZuxZXg0QtgibjR6H1Ykd2FFFaVT7hi9jc6"`,
		},
	},
	{
		ID: "square-legacy-access-token", Type: "square_legacy_access_token", Name: "Square legacy access token",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"sq0atp-"},
		Pattern: `\b(sq0atp-[0-9A-Za-z_-]{22})`,
		Examples: []string{
			`TOKEN = "sq0atp-x_R6PIhH5Qj6NQMrNkE5Ys"`,
		},
	},
	{
		ID: "square-oauth-secret", Type: "square_oauth_secret", Name: "Square OAuth application secret",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"sq0csp-"},
		Pattern: `\b(sq0csp-[0-9A-Za-z_-]{43})`,
		Examples: []string{
			`TOKEN = "sq0csp-3PsSkEpSC8nPNBdsCyblnLuMfDfg6vjLzW8bRdMunB8"`,
		},
	},
	{
		ID: "braintree-access-token", Type: "braintree_access_token", Name: "PayPal Braintree production access token",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"access_token$production$"},
		Pattern: `\b(access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32})`,
		Examples: []string{
			`TOKEN = "access_token$production$wl54l87tr5zzli7i$61af5d2c5d01bc769e25f2250bb04854"`,
		},
	},
	{
		ID: "braintree-sandbox-token", Type: "braintree_sandbox_access_token", Name: "PayPal Braintree sandbox access token",
		Family: "payment", Severity: SeverityLow, Evidence: evPrefix,
		Keywords: []string{"access_token$sandbox$"},
		Pattern: `\b(access_token\$sandbox\$[0-9a-z]{16}\$[0-9a-f]{32})`,
		Examples: []string{
			`TOKEN = "access_token$sandbox$8qdsiphou1wukzx2$d31102218ce6362bbd69ba18c91533b9"`,
		},
	},
	{
		ID: "razorpay-live-key", Type: "razorpay_live_key_id", Name: "Razorpay live key ID",
		Family: "payment", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"rzp_live_"},
		Pattern: `\b(rzp_live_[A-Za-z0-9]{14})`,
		Examples: []string{
			`TOKEN = "rzp_live_tfdjC3s5Hcta2p"`,
		},
	},
	{
		ID: "flutterwave-secret-key", Type: "flutterwave_secret_key", Name: "Flutterwave secret key",
		Family: "payment", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"FLWSECK"},
		Pattern: `\b(FLWSECK(?:_TEST)?-[0-9a-f]{32}-X)`,
		Examples: []string{
			`TOKEN = "FLWSECK-e6f7aeb73ebf8a677e5244eb36ba6b10-X"`,
			`TOKEN = "FLWSECK_TEST-894a8496d8eb6f58df97872a2e3e5a90-X"`,
		},
	},
	{
		ID: "shopify-access-token", Type: "shopify_access_token", Name: "Shopify Admin API access token",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"shpat_"},
		Pattern: `\b(shpat_[a-fA-F0-9]{32})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "shopify-custom-app-token", Type: "shopify_custom_app_token", Name: "Shopify custom app access token",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"shpca_"},
		Pattern: `\b(shpca_[a-fA-F0-9]{32})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "shopify-private-app-token", Type: "shopify_private_app_token", Name: "Shopify private app access token",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"shppa_"},
		Pattern: `\b(shppa_[a-fA-F0-9]{32})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "shopify-shared-secret", Type: "shopify_shared_secret", Name: "Shopify app shared secret",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"shpss_"},
		Pattern: `\b(shpss_[a-fA-F0-9]{32})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "shippo-api-token", Type: "shippo_api_token", Name: "Shippo API token",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"shippo_"},
		Pattern: `\b(shippo_(?:live|test)_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "shippo_live_07466d7e765a5848756c2bb4be512ea692c292a2"`,
		},
	},
	{
		ID: "duffel-api-token", Type: "duffel_api_token", Name: "Duffel API token",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"duffel_"},
		Pattern: `\b(duffel_(?:test|live)_[A-Za-z0-9_=-]{43})`,
		Examples: []string{
			`TOKEN = "duffel_live_-xKapWR2QBpCqZ70Liqd60FaZgkQQjZsrWxUINNARr8"`,
		},
	},
	{
		ID: "easypost-api-key", Type: "easypost_api_key", Name: "EasyPost API key",
		Family: "payment", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"EZAK", "EZTK"},
		Pattern: `\b(EZ[AT]K[a-zA-Z0-9]{54})`,
		Examples: []string{
			`TOKEN = "EZAKa9nC0SaNVXo0I4qiE2CyR3adsNjI9JtSoTiiQYi0n8Z4vY1QWEY4g1"`,
		},
	},
}
