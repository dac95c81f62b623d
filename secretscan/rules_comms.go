// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

// commsRules: messaging, e-mail and social platforms.
var commsRules = []*rule{
	{
		ID: "slack-bot-token", Type: "slack_bot_token", Name: "Slack bot token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xoxb-"},
		Pattern:  `\b(xoxb-[0-9]{10,13}-(?:[0-9]{10,13}-)?[A-Za-z0-9]{24,34})`,
		Validate: validSlack,
		Examples: []string{
			`TOKEN = "xoxb-134670631143-4943266081043-Hfodn7NT1A44uAV1kw6DaG8P"`,
		},
		NegativeExamples: []string{
			`xoxb-xxxxxxxxxxxx-xxxxxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx`,
		},
	},
	{
		ID: "slack-user-token", Type: "slack_user_token", Name: "Slack user token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xoxp-"},
		Pattern:  `\b(xoxp-[0-9]{10,13}-[0-9]{10,13}-[0-9]{10,13}-[a-f0-9]{32})`,
		Validate: validSlack,
		Examples: []string{
			`TOKEN = "xoxp-268523004339-910799519432-6683631879574-897eda60adcee5274b5c8671432501b9"`,
		},
	},
	{
		ID: "slack-app-token", Type: "slack_app_token", Name: "Slack app-level token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xapp-"},
		Pattern:  `\b(xapp-\d-[A-Z0-9]{9,12}-\d{10,14}-[a-f0-9]{64})`,
		Examples: []string{
			`TOKEN = "xapp-1-ALUYEUKGZ8O-3370804151222-71774b6d8c40b3c8a6b4ec9979d80275ecd7a1584e259daac6b5a638df3addfb"`,
		},
	},
	{
		ID: "slack-config-token", Type: "slack_config_token", Name: "Slack configuration access token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xoxe.xox"},
		Pattern:  `\b(xoxe\.xox[bp]-\d-[A-Za-z0-9]{150,180})`,
		Examples: []string{
			`TOKEN = "xoxe.xoxp-1-YP1FEEHLZ4MMYLNZ98IIDKGDEM9ASLD0OMW7F67FBMR3KBRQ56IVWMK0PGLR4KXX2YBF1O8Q33AR2Z95SXXG82IQY3U21QUARS3QU8M5P9Y8P3NQSEOPRD54VQWDKU8Y5QYJ1JRFUW7Q9DL94SWJVOF5R7PT5UHUAONK0L"`,
		},
	},
	{
		ID: "slack-config-refresh-token", Type: "slack_config_refresh_token", Name: "Slack configuration refresh token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xoxe-"},
		Pattern:  `\b(xoxe-\d-[A-Za-z0-9]{130,160})`,
		Examples: []string{
			`TOKEN = "xoxe-1-KXQ690L5QDNTDQ4TEM6SONB4Q1Q37Z6WYL7CF0IS15T055KEBILWZDV22OY62IZDPGPBDWCTJ55600EDNM0RQE0G3L77TB97WYUTSJAPAHBXEHOZJ7K07TPDNXL6NWV8K8W7VMI3JVR9AZH786"`,
		},
	},
	{
		ID: "slack-legacy-token", Type: "slack_legacy_token", Name: "Slack legacy or workspace token",
		Family: "comms", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords:   []string{"xoxa-", "xoxo-", "xoxr-", "xoxs-"},
		Pattern:    `\b(xox[aors]-(?:\d+-){1,3}[A-Za-z0-9]{8,64})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "xoxs-63292843371-22369384347-1JyWRVR7JkMY82EYSPNvsZI5QBu1vWiq"`,
		},
	},
	{
		ID: "slack-webhook-url", Type: "slack_webhook_url", Name: "Slack incoming webhook URL",
		Family: "comms", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"hooks.slack.com/"},
		Pattern:  `(?P<secret>https://hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Za-z0-9]{8,12}/[A-Za-z0-9]{8,12}/[A-Za-z0-9]{20,32})`,
		Before:   10,
		After:    120,
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
		Pattern:  `(?P<secret>https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{17,20}/[A-Za-z0-9_-]{60,68})`,
		Before:   40,
		After:    120,
		Examples: []string{
			`https://discord.com/api/webhooks/265689987747571547/oV2G18jR8U2w7vMUREaG5KCM1vd2DhEvgL13zzwkGLR1bKgwEMrBKN75uUYt_R22t-D0`,
		},
	},
	{
		ID: "discord-bot-token", Type: "discord_bot_token", Name: "Discord bot token",
		Family: "comms", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"discord"},
		Pattern:  `(?i)discord[\w.\- ]{0,40}?[\s"\'=:>,]+\s*["\']?(?P<secret>(?-i:[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}))`,
		After:    200,
		Examples: []string{
			`DISCORD_BOT_TOKEN=MpDwEj1rL2tsQpwpeKHjadSjaa.QJhDEF.JdeD6GbpJjSPAD-uNA300j9129n592np74kgw1`,
		},
	},
	{
		ID: "telegram-bot-token", Type: "telegram_bot_token", Name: "Telegram bot token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{":AA"},
		Pattern:    `\b(?P<secret>\d{8,10}:AA[0-9A-Za-z_-]{32,35})`,
		Before:     12,
		MinEntropy: 3.5,
		Examples: []string{
			`TELEGRAM_TOKEN=0086195585:AABgpKs2C0fjqJFs68SQlmXNQ0viWi8972r`,
		},
	},
	{
		ID: "twilio-api-key-sid", Type: "twilio_api_key", Name: "Twilio API key SID (SK + 32 hex)",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"SK"},
		Pattern:  `\b(?P<secret>SK[0-9a-fA-F]{32})\b`,
		After:    40,
		Pre:      twilioSKAhead,
		Examples: []string{
			`key_sid: SK8e4a82335581ce664f20055fb3c94eab`,
		},
		NegativeExamples: []string{
			`taske43b8d0e2ef6ba78446cf6b70e5b87b3`,
			`SK687682b41e8ea2633e48abc345c7e5d`,
		},
	},
	{
		ID: "twilio-auth-token", Type: "twilio_auth_token", Name: "Twilio auth token",
		Family: "comms", Severity: SeverityCritical, Evidence: evKeyword,
		Keywords:   []string{"twilio"},
		Pattern:    `(?i)twilio[\w.\-]{0,20}(?:auth|token|secret)[\w.\-]{0,20}["\']?\s*(?:[:=]|:=|=>)\s*["\']?(?P<secret>(?-i:[a-f0-9]{32}))`,
		After:      120,
		MinEntropy: 3.0,
		Examples: []string{
			`TWILIO_AUTH_TOKEN=56da1ec35505182152439c5e150be6ee`,
		},
	},
	{
		ID: "sendgrid-api-key", Type: "sendgrid_api_key", Name: "SendGrid API key",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"SG."},
		Pattern:    `\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "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"`,
		},
		NegativeExamples: []string{
			`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`,
		},
	},
	{
		ID: "mailgun-api-key", Type: "mailgun_api_key", Name: "Mailgun private API key (legacy)",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"key-"},
		Pattern:  `\b(key-[0-9a-f]{32})`,
		Examples: []string{
			`TOKEN = "key-81d6cbf1d359a0e6f7aecaaed241ad07"`,
		},
	},
	{
		ID: "mailgun-private-key", Type: "mailgun_private_api_key", Name: "Mailgun private API key",
		Family: "comms", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords: []string{"mailgun"},
		Pattern:  `(?is)mailgun.{0,120}?\b(?P<secret>(?-i:[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}))\b`,
		After:    200,
		Examples: []string{
			`MAILGUN_API_KEY=c58644d764e48517abb2ea322c81fb44-6fdb4cc2-ec2647e7`,
		},
	},
	{
		ID: "mailchimp-api-key", Type: "mailchimp_api_key", Name: "Mailchimp API key",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"-us"},
		Pattern:  `\b(?P<secret>[0-9a-f]{32}-us\d{1,2})\b`,
		Before:   36,
		Examples: []string{
			`MAILCHIMP_KEY=956670fcc8e5434658cb5d6ffc38dca0-us14`,
		},
	},
	{
		ID: "brevo-api-key", Type: "brevo_api_key", Name: "Brevo (Sendinblue) API key",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xkeysib-"},
		Pattern:  `\b(xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "brevo-smtp-key", Type: "brevo_smtp_key", Name: "Brevo (Sendinblue) SMTP key",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xsmtpsib-"},
		Pattern:  `\b(xsmtpsib-[a-f0-9]{64}-[A-Za-z0-9]{16})`,
		Examples: []string{
			`TOKEN = "xsmtpsib-7b3c5668e6d219d706b50a82eefb4b76086da3bf4616904a0020abadfb59c820-sovyNPzGOe0QPHeJ"`,
		},
	},
	{
		ID: "msteams-webhook-url", Type: "msteams_webhook_url", Name: "Microsoft Teams incoming webhook URL",
		Family: "comms", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"webhook.office.com", "outlook.office.com/webhook"},
		Pattern:  `(?P<secret>https://[\w.-]{0,60}(?:webhook\.office\.com/webhookb2|outlook\.office\.com/webhook)/[0-9a-fA-F-]{36}@[0-9a-fA-F-]{36}/IncomingWebhook/[0-9a-zA-Z]{32}/[0-9a-fA-F-]{36}(?:/[\w-]{10,60})?)`,
		Before:   80,
		After:    260,
		Examples: []string{
			`https://contoso.webhook.office.com/webhookb2/500060d2-8697-51c5-0091-441c919753e8@0854fb9f-5028-7280-29a3-974852669d59/IncomingWebhook/139c48a7ccf8d6adf3ee2ed678f3e617/c27e6482-59a8-3418-793b-b52884bf649b`,
		},
	},
	{
		ID: "twitter-bearer-token", Type: "twitter_bearer_token", Name: "Twitter/X API bearer token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:         []string{"AAAAAAAAAAAAAAAAAAAAA"},
		Pattern:          `\b(AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{60,120})`,
		MinEntropy:       3.0,
		KeepPlaceholders: true,
		Examples: []string{
			`TOKEN = "AAAAAAAAAAAAAAAAAAAAAsgHDTQp9bW1VDkV7Jg884I4t3e6HAA%3D3fba4PhsuLzvBMsROoALlGUkBCZCD5zNVc3e3yMr"`,
		},
	},
	{
		ID: "facebook-access-token", Type: "facebook_access_token", Name: "Facebook / Meta access token",
		Family: "comms", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"EAAB", "EAAC", "EAAD", "EAAG", "EAAI", "EAAM", "EAAQ"},
		Pattern:    `\b(EAA[BCDGIMQ][A-Za-z0-9]{80,250})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "EAABEZ0cqqNBCtM5XQdOfvVsshaLNAvDpZB9HiMP8PQWXiu0IvcrkPXv6vmisoBflVboHmTTmTcGhhN6WbT9aoIrKZm5yqbvo0z6FMOi4KJ97vE5l55WaQnBsQJ5sfxZeZS0KfdbqBTcQLPchhHveKNXY1"`,
		},
	},
	{
		ID: "zapier-webhook-url", Type: "zapier_webhook_url", Name: "Zapier catch hook URL",
		Family: "comms", Severity: SeverityMedium, Evidence: evStructure,
		Keywords: []string{"hooks.zapier.com/hooks/catch/"},
		Pattern:  `(?P<secret>https://hooks\.zapier\.com/hooks/catch/\d{5,12}/[a-z0-9]{5,12}/?)`,
		Before:   10,
		After:    80,
		Examples: []string{
			`https://hooks.zapier.com/hooks/catch/35284440/4yzcjxe/`,
		},
	},
}
