// Code written by hand as data; one family per file.

package secretscan

// aiRules: AI and machine-learning platforms.
var aiRules = []*rule{
	{
		ID: "openai-project-key", Type: "openai_api_key", Name: "OpenAI project API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sk-proj-"},
		Pattern: `\b(sk-proj-[A-Za-z0-9_-]{40,200})`,
		MinEntropy: 4.0,
		Validate: containsMarker("T3BlbkFJ"),
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "openai-service-account-key", Type: "openai_service_account_key", Name: "OpenAI service-account key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sk-svcacct-"},
		Pattern: `\b(sk-svcacct-[A-Za-z0-9_-]{40,200})`,
		MinEntropy: 4.0,
		Validate: containsMarker("T3BlbkFJ"),
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "openai-admin-key", Type: "openai_admin_key", Name: "OpenAI admin key",
		Family: "ai", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"sk-admin-"},
		Pattern: `\b(sk-admin-[A-Za-z0-9_-]{40,200})`,
		MinEntropy: 4.0,
		Validate: containsMarker("T3BlbkFJ"),
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "openai-legacy-key", Type: "openai_api_key", Name: "OpenAI API key (legacy user key)",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"T3BlbkFJ"},
		Pattern: `\b(?P<secret>sk-(?:[A-Za-z0-9_-]{1,40}-)?[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})\b`,
		Before: 70,
		Validate: containsMarker("T3BlbkFJ"),
		Examples: []string{
			`OPENAI_API_KEY=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`,
		},
	},
	{
		ID: "anthropic-api-key", Type: "anthropic_api_key", Name: "Anthropic API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sk-ant-api03-"},
		Pattern: `\b(sk-ant-api03-[A-Za-z0-9_-]{80,110})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "sk-ant-api03-DGafoZ0jeowyDEKNBBlfCRJIMdtgAa8sWvXJwEvvqSNFbL1wiUAnSe2BfHyvAOiHgCMPaa6DOgC3cjLjgWPWhNS05ri0oAA"`,
		},
	},
	{
		ID: "anthropic-admin-key", Type: "anthropic_admin_key", Name: "Anthropic admin API key",
		Family: "ai", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords: []string{"sk-ant-admin01-"},
		Pattern: `\b(sk-ant-admin01-[A-Za-z0-9_-]{80,110})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "sk-ant-admin01-QxY8UvLm76iIK1CpKUVjRCsKjElsMUKmpMYvzuuWL5NjGXZLxWLLQDiH3bZinYQarVK6Ww6-icVfNkGzYtbFNckJLj12DAA"`,
		},
	},
	{
		ID: "huggingface-token", Type: "huggingface_access_token", Name: "Hugging Face access token",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"hf_"},
		Pattern: `\b(hf_[A-Za-z]{34})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "huggingface-org-token", Type: "huggingface_org_token", Name: "Hugging Face organization API token",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"api_org_"},
		Pattern: `\b(api_org_[A-Za-z]{34})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "replicate-api-token", Type: "replicate_api_token", Name: "Replicate API token",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"r8_"},
		Pattern: `\b(r8_[A-Za-z0-9]{37})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "r8_ORV0tzxGlVT5tzXcee0FkMAihdHXKgEnIFP63"`,
		},
	},
	{
		ID: "groq-api-key", Type: "groq_api_key", Name: "Groq API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"gsk_"},
		Pattern: `\b(gsk_[A-Za-z0-9]{52})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "perplexity-api-key", Type: "perplexity_api_key", Name: "Perplexity API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"pplx-"},
		Pattern: `\b(pplx-[A-Za-z0-9]{48})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "xai-api-key", Type: "xai_api_key", Name: "xAI API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"xai-"},
		Pattern: `\b(xai-[A-Za-z0-9]{80})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "xai-loBufv1JQf7jaXA8LYPpCP0hWaCI7sfYU1wX2sVLm49meNtTiKZBCO05lJSYnR4P0mtOwTyPTOHtcrlJ"`,
		},
	},
	{
		ID: "langsmith-api-key", Type: "langsmith_api_key", Name: "LangSmith API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"lsv2_"},
		Pattern: `\b(lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "pinecone-api-key", Type: "pinecone_api_key", Name: "Pinecone API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"pcsk_"},
		Pattern: `\b(pcsk_[A-Za-z0-9_]{50,90})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "pcsk_4UbmlF_IAJTXgrjdDD8tUj340ujQkciA7Hk7cRJK5fN4lxQb8g6li2LXgr0RcfWMf9rAe2"`,
		},
	},
	{
		ID: "tavily-api-key", Type: "tavily_api_key", Name: "Tavily API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"tvly-"},
		Pattern: `\b(tvly-(?:dev-|prod-)?[A-Za-z0-9]{32})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "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"`,
			`TOKEN = "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"`,
		},
	},
	{
		ID: "firecrawl-api-key", Type: "firecrawl_api_key", Name: "Firecrawl API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"fc-"},
		Pattern: `\b(fc-[a-f0-9]{32})`,
		Examples: []string{
			`TOKEN = "fc-787cc48e530444b5026cf9025cff09a6"`,
		},
	},
	{
		ID: "jina-api-key", Type: "jina_api_key", Name: "Jina AI API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"jina_"},
		Pattern: `\b(jina_[A-Za-z0-9_-]{60,64})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "jina_a98a9480373549a491253474770e7958gUb6HQBuTANM4gMC9ikEW5wbbbct0m"`,
		},
	},
	{
		ID: "nvidia-api-key", Type: "nvidia_api_key", Name: "NVIDIA NGC / NIM API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"nvapi-"},
		Pattern: `\b(nvapi-[A-Za-z0-9_-]{64})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "openrouter-api-key", Type: "openrouter_api_key", Name: "OpenRouter API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sk-or-v1-"},
		Pattern: `\b(sk-or-v1-[a-f0-9]{64})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "fireworks-api-key", Type: "fireworks_api_key", Name: "Fireworks AI API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"fw_"},
		Pattern: `\b(fw_[A-Za-z0-9]{24})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "fw_YftTGbfS6oFIme6UyEKtr4JQ"`,
		},
	},
	{
		ID: "elevenlabs-api-key", Type: "elevenlabs_api_key", Name: "ElevenLabs API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sk_"},
		Pattern: `\b(sk_[a-f0-9]{48})`,
		MinEntropy: 3.3,
		Examples: []string{
			`TOKEN = "sk_8ae8a6edcb92376440ebda6077493b32bc8db383f36556d1"`,
		},
	},
	{
		ID: "kagi-api-key", Type: "kagi_api_key", Name: "Kagi API key",
		Family: "ai", Severity: SeverityMedium, Evidence: evKeyword,
		Keywords: []string{"kagi"},
		Pattern: `(?i)kagi[\w.\- ]{0,30}?[\s"\'=:>,]+(?P<secret>(?-i:[A-Za-z0-9_-]{11}\.[A-Za-z0-9_-]{43}))`,
		After: 120,
		Examples: []string{
			`TOKEN = "KAGI_API_KEY=QnVq5lGO7vD.27S-18rSC-hgtrodHmbWyBu3Ok3JFoKnCI6c67Lxn7t"`,
		},
	},
}
