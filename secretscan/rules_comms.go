// Code written by hand as data; one family per file.

package secretscan

// commsRules: messaging, e-mail and social platforms.
var commsRules = []*rule{
	{
		ID: "slack-bot-token", Type: "slack_bot_token", Name: "Slack bot token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xoxb-"},
		Pattern: `\b(xoxb-[0-9]{10,13}-[0-9]{10,13}-[A-Za-z0-9]{24,34})`,
		Validate: validSlack,
		Examples: []string{
			`TOKEN = "xoxb-735932289999-5958100390388-3qiVCyWhrlrdfcMTFfshjW9B"`,
		},
		NegativeExamples: []string{
			`xoxb-xxxxxxxxxxxx-xxxxxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx`,
		},
	},
	{
		ID: "slack-user-token", Type: "slack_user_token", Name: "Slack user token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xoxp-"},
		Pattern: `\b(xoxp-[0-9]{10,13}-[0-9]{10,13}-[0-9]{10,13}-[a-f0-9]{32})`,
		Validate: validSlack,
		Examples: []string{
			`TOKEN = "xoxp-455042233926-540668933864-8740163193948-be488f55d8e41e82efdbda9135b6e248"`,
		},
	},
	{
		ID: "slack-app-token", Type: "slack_app_token", Name: "Slack app-level token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xapp-"},
		Pattern: `\b(xapp-\d-[A-Z0-9]{9,12}-\d{10,14}-[a-f0-9]{64})`,
		Examples: []string{
			`TOKEN = "xapp-1-AJ8O4BRHM0E-9968157058963-657471f227e264b4f4663886d9144f090255207893fca630ab11913491a2d27a"`,
		},
	},
	{
		ID: "slack-config-token", Type: "slack_config_token", Name: "Slack configuration access token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xoxe.xox"},
		Pattern: `\b(xoxe\.xox[bp]-\d-[A-Z0-9]{160,170})`,
		Examples: []string{
			`TOKEN = "xoxe.xoxp-1-Z3UAWKNGLUHZ9GPJB6ICB7ONBLTCMXDD1HBT95PS5KPTZ8LR09SY2B1SRO9UK9LQQCZHORZ2AYOGESORQOKYZD6ECRORHX3BKEEK5BGNQIZK18WKOACTNMGA4WFRPKZ19OZPG74X2T9QSO21V9MBU0Z283LFOJXKYQ87NP"`,
		},
	},
	{
		ID: "slack-config-refresh-token", Type: "slack_config_refresh_token", Name: "Slack configuration refresh token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xoxe-"},
		Pattern: `\b(xoxe-\d-[A-Z0-9]{140,150})`,
		Examples: []string{
			`TOKEN = "xoxe-1-CJHF6LBDWSLUYEUKGZ8ONN4B7DSGUGILJPCOPI6WN1QYJ7AXGZQV8MXJ2ZSTPT0QBFOK3Z0OV7DKQJ3EL8T0VUYNWKVNGQ05HU005XYP1FEEHLZ4MMYLNZ98IIDKGDEM9ASLD0OMW7F67FBMR3"`,
		},
	},
	{
		ID: "slack-legacy-token", Type: "slack_legacy_token", Name: "Slack legacy or workspace token",
		Family: "comms", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"xoxa-", "xoxo-", "xoxr-", "xoxs-"},
		Pattern: `\b(xox[aors]-(?:\d+-){1,3}[A-Za-z0-9]{8,64})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "xoxs-20447825532-69312472995-jiNSOz15cREYxGkTvTj0HbqcSxpPZVkd"`,
		},
	},
	{
		ID: "slack-webhook-url", Type: "slack_webhook_url", Name: "Slack incoming webhook URL",
		Family: "comms", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"hooks.slack.com/"},
		Pattern: `(?P<secret>https://hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{8,12}/[A-Z0-9]{8,12}/[A-Za-z0-9]{20,32})`,
		Before: 10,
		After: 120,
		Examples: []string{
			`https://hooks.slack.com/services/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`,
		},
		NegativeExamples: []string{
			`https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX`,
		},
	},
	{
		ID: "discord-webhook-url", Type: "discord_webhook_url", Name: "Discord webhook URL",
		Family: "comms", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"/api/webhooks/"},
		Pattern: `(?P<secret>https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{17,20}/[A-Za-z0-9_-]{60,68})`,
		Before: 40,
		After: 120,
		Examples: []string{
			`https://discord.com/api/webhooks/133940775994502598/m-XmItIYAejW6MzajIgSB_YUc-fFf1SRKqNLkWqN-X7Rd6Wzd9OaSQ2yWtXxojmM5ArG`,
		},
	},
	{
		ID: "discord-bot-token", Type: "discord_bot_token", Name: "Discord bot token",
		Family: "comms", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"discord"},
		Pattern: `(?i)discord[\w.\- ]{0,40}?[\s"\'=:>,]+\s*["\']?(?P<secret>(?-i:[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}))`,
		After: 200,
		Examples: []string{
			`DISCORD_BOT_TOKEN=MIsRmzVJlQVVA4td1v8tdsBzMP.7huuTn.vGo7VDV37j4cI--rr96QPqYW8rCxMd2inecbJ0`,
		},
	},
	{
		ID: "telegram-bot-token", Type: "telegram_bot_token", Name: "Telegram bot token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{":AA"},
		Pattern: `\b(?P<secret>\d{8,10}:AA[0-9A-Za-z_-]{33})`,
		Before: 12,
		MinEntropy: 3.5,
		Examples: []string{
			`TELEGRAM_TOKEN=3010591136:AAJLqcU7RkNRjhLjhPGwJgY0oFpUIGbOOuF`,
		},
	},
	{
		ID: "twilio-api-key", Type: "twilio_api_key", Name: "Twilio API key SID with context",
		Family: "comms", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"twilio"},
		Pattern: `(?is)twilio.{0,200}?\b(?P<secret>(?-i:SK[0-9a-fA-F]{32}))\b`,
		After: 300,
		Examples: []string{
			`TWILIO_API_KEY=SK546d6968e09dfd39b417ecb92d501166`,
		},
	},
	{
		ID: "twilio-auth-token", Type: "twilio_auth_token", Name: "Twilio auth token",
		Family: "comms", Severity: SeverityCritical, Evidence: evKeyword,
		Keywords: []string{"twilio"},
		Pattern: `(?i)twilio[\w.\-]{0,20}(?:auth|token|secret)[\w.\-]{0,20}["\']?\s*(?:[:=]|:=|=>)\s*["\']?(?P<secret>(?-i:[a-f0-9]{32}))`,
		After: 120,
		MinEntropy: 3.0,
		Examples: []string{
			`TWILIO_AUTH_TOKEN=c3f6866e55c5cee908b44cacef9eae2b`,
		},
	},
	{
		ID: "sendgrid-api-key", Type: "sendgrid_api_key", Name: "SendGrid API key",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"SG."},
		Pattern: `\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "SG.Z_oV2G18jR8U2w7vMUREaG.5KCM1vd2DhEvgL13zzwkGLR1bKgwEMrBKN75uUYt_R2"`,
		},
		NegativeExamples: []string{
			`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`,
		},
	},
	{
		ID: "mailgun-api-key", Type: "mailgun_api_key", Name: "Mailgun private API key (legacy)",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"key-"},
		Pattern: `\b(key-[0-9a-f]{32})`,
		Examples: []string{
			`TOKEN = "key-0df30670a1da8e64a33349a3149c4b76"`,
		},
	},
	{
		ID: "mailgun-private-key", Type: "mailgun_private_api_key", Name: "Mailgun private API key",
		Family: "comms", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"mailgun"},
		Pattern: `(?is)mailgun.{0,120}?\b(?P<secret>(?-i:[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}))\b`,
		After: 200,
		Examples: []string{
			`MAILGUN_API_KEY=23fe52000b2002c120cc11bae011c3bb-b2ac5d03-0abd43d1`,
		},
	},
	{
		ID: "mailchimp-api-key", Type: "mailchimp_api_key", Name: "Mailchimp API key",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"-us"},
		Pattern: `\b(?P<secret>[0-9a-f]{32}-us\d{1,2})\b`,
		Before: 36,
		Examples: []string{
			`MAILCHIMP_KEY=276bc8560eb8b2210d8e4a82335581ce-us14`,
		},
	},
	{
		ID: "brevo-api-key", Type: "brevo_api_key", Name: "Brevo (Sendinblue) API key",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xkeysib-"},
		Pattern: `\b(xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "brevo-smtp-key", Type: "brevo_smtp_key", Name: "Brevo (Sendinblue) SMTP key",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xsmtpsib-"},
		Pattern: `\b(xsmtpsib-[a-f0-9]{64}-[A-Za-z0-9]{16})`,
		Examples: []string{
			`TOKEN = "xsmtpsib-45c7e5d56da1ec35505182152439c5e150be6eeea9b1b25efabc87421a214b8b-fAaOX590XNYVkzuG"`,
		},
	},
	{
		ID: "msteams-webhook-url", Type: "msteams_webhook_url", Name: "Microsoft Teams incoming webhook URL",
		Family: "comms", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"webhook.office.com", "outlook.office.com/webhook"},
		Pattern: `(?P<secret>https://[\w.-]{0,60}(?:webhook\.office\.com/webhookb2|outlook\.office\.com/webhook)/[0-9a-fA-F-]{36}@[0-9a-fA-F-]{36}/IncomingWebhook/[0-9a-zA-Z]{32}/[0-9a-fA-F-]{36}(?:/[\w-]{10,60})?)`,
		Before: 80,
		After: 260,
		Examples: []string{
			`https://contoso.webhook.office.com/webhookb2/5902e4f1-d51b-e334-a287-a820e8d86651@81d6cbf1-d359-a0e6-f7ae-caaed241ad07/IncomingWebhook/c58644d764e48517abb2ea322c81fb44/6fdb4cc2-ec26-47e7-9566-70fcc8e54346`,
		},
	},
	{
		ID: "twitter-bearer-token", Type: "twitter_bearer_token", Name: "Twitter/X API bearer token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"AAAAAAAAAAAAAAAAAAAAA"},
		Pattern: `\b(AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{60,120})`,
		MinEntropy: 3.0,
		KeepPlaceholders: true,
		Examples: []string{
			`TOKEN = "AAAAAAAAAAAAAAAAAAAAAnBXHPqMBRDYiUUOdjiz6GRrPlvKl0G%3DBo7aQgiSz2b9gkN7vu5Oy9SnlIZJhidqj9JkEjeF"`,
		},
	},
	{
		ID: "facebook-access-token", Type: "facebook_access_token", Name: "Facebook / Meta access token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"EAAB", "EAAC", "EAAD", "EAAG", "EAAI", "EAAM", "EAAQ"},
		Pattern: `\b(EAA[BCDGIMQ][A-Za-z0-9]{80,250})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "EAABMSwbJ1u2Lih2RTrxeU1G6QsI5AHMnoHwma2vlkhO6T0VcNQ0eHfEKcnZ2Iocm7KGRKmDLaRcBQwLQBtd1rZvJ44NZme2EdM7hOfBckDDHSfYCR5m2JQE1tCNA0KtcZdG4dlTSUMbp9nNFmC0jwGDRw"`,
		},
	},
	{
		ID: "zapier-webhook-url", Type: "zapier_webhook_url", Name: "Zapier catch hook URL",
		Family: "comms", Severity: SeverityMedium, Evidence: evStructure,
		Keywords: []string{"hooks.zapier.com/hooks/catch/"},
		Pattern: `(?P<secret>https://hooks\.zapier\.com/hooks/catch/\d{5,12}/[a-z0-9]{5,12}/?)`,
		Before: 10,
		After: 80,
		Examples: []string{
			`https://hooks.zapier.com/hooks/catch/59159723/dntbiva/`,
		},
	},
}
