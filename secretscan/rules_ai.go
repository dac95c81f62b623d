// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

// aiRules: AI and machine-learning platforms.
var aiRules = []*rule{
	{
		ID: "openai-project-key", Type: "openai_api_key", Name: "OpenAI project API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"sk-proj-"},
		Pattern:    `\b(sk-proj-[A-Za-z0-9_-]{40,200})`,
		MinEntropy: 4.0,
		Validate:   containsMarker("T3BlbkFJ"),
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "openai-service-account-key", Type: "openai_service_account_key", Name: "OpenAI service-account key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"sk-svcacct-"},
		Pattern:    `\b(sk-svcacct-[A-Za-z0-9_-]{40,200})`,
		MinEntropy: 4.0,
		Validate:   containsMarker("T3BlbkFJ"),
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "openai-admin-key", Type: "openai_admin_key", Name: "OpenAI admin key",
		Family: "ai", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords:   []string{"sk-admin-"},
		Pattern:    `\b(sk-admin-[A-Za-z0-9_-]{40,200})`,
		MinEntropy: 4.0,
		Validate:   containsMarker("T3BlbkFJ"),
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "openai-legacy-key", Type: "openai_api_key", Name: "OpenAI API key (legacy user key)",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"T3BlbkFJ"},
		Pattern:  `\b(?P<secret>sk-(?:[A-Za-z0-9_-]{1,40}-)?[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})\b`,
		Before:   70,
		Validate: containsMarker("T3BlbkFJ"),
		Examples: []string{
			`OPENAI_API_KEY=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`,
		},
	},
	{
		ID: "anthropic-api-key", Type: "anthropic_api_key", Name: "Anthropic API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"sk-ant-api03-"},
		Pattern:    `\b(sk-ant-api03-[A-Za-z0-9_-]{80,110})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "sk-ant-api03-ILQsHGjElLHYcQnKHYXHoM3crFLHgoPp1PaEy25_g8IkweMOn1Bcvt8p0mwoxnZcKnmdrV3jng9NO4TkQOIVkxXPw94kXAA"`,
		},
	},
	{
		ID: "anthropic-admin-key", Type: "anthropic_admin_key", Name: "Anthropic admin API key",
		Family: "ai", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords:   []string{"sk-ant-admin01-"},
		Pattern:    `\b(sk-ant-admin01-[A-Za-z0-9_-]{80,110})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "sk-ant-admin01-qbsWCbZk8K4VQ9zUaKdxRQHy780rKFZFtdeBk8qGD5h1tjJL4CQ9ao4vbN1mQ2SyLYEk9GQRs0fg0gGIUZUpmIXvNC2JGAA"`,
		},
	},
	{
		ID: "huggingface-token", Type: "huggingface_access_token", Name: "Hugging Face access token",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"hf_"},
		Pattern:    `\b(hf_[A-Za-z]{34})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "huggingface-org-token", Type: "huggingface_org_token", Name: "Hugging Face organization API token",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"api_org_"},
		Pattern:    `\b(api_org_[A-Za-z]{34})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "replicate-api-token", Type: "replicate_api_token", Name: "Replicate API token",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"r8_"},
		Pattern:    `\b(r8_[A-Za-z0-9]{37})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "r8_X9J3hbvtn5A68hFqia8FE1rTEIYgAoGjgLlFm"`,
		},
	},
	{
		ID: "groq-api-key", Type: "groq_api_key", Name: "Groq API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"gsk_"},
		Pattern:    `\b(gsk_[A-Za-z0-9]{52})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "perplexity-api-key", Type: "perplexity_api_key", Name: "Perplexity API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"pplx-"},
		Pattern:    `\b(pplx-[A-Za-z0-9]{48})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "xai-api-key", Type: "xai_api_key", Name: "xAI API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"xai-"},
		Pattern:    `\b(xai-[A-Za-z0-9]{80})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "xai-KGLVNyeX6GK7IZPVBvRR9ufpcWwb8dyIk7pNDRfse3tIqniHedb9fv0m2c5OKvAkSaUXzlBYoyOlcJ6Q"`,
		},
	},
	{
		ID: "langsmith-api-key", Type: "langsmith_api_key", Name: "LangSmith API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"lsv2_"},
		Pattern:  `\b(lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "pinecone-api-key", Type: "pinecone_api_key", Name: "Pinecone API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"pcsk_"},
		Pattern:    `\b(pcsk_[A-Za-z0-9_]{50,90})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "pcsk_BQmrOv_B4j769gRrRcicgX8x9W3dTLYmgTrti0uexAfvFHYftTGbfS6oFIme6UyEKtr4JQ"`,
		},
	},
	{
		ID: "tavily-api-key", Type: "tavily_api_key", Name: "Tavily API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"tvly-"},
		Pattern:    `\b(tvly-(?:dev-|prod-)?[A-Za-z0-9]{32})`,
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
		Pattern:  `\b(fc-[a-f0-9]{32})`,
		Examples: []string{
			`TOKEN = "fc-c8db383f36556d16c7d1b461e3017f02"`,
		},
	},
	{
		ID: "jina-api-key", Type: "jina_api_key", Name: "Jina AI API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"jina_"},
		Pattern:    `\b(jina_[A-Za-z0-9_-]{60,64})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "jina_d73faaddc94c98f2e06b043c5c341911Lxn7tZlMjQlWANx_496lDirWUCrkc7"`,
		},
	},
	{
		ID: "nvidia-api-key", Type: "nvidia_api_key", Name: "NVIDIA NGC / NIM API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"nvapi-"},
		Pattern:    `\b(nvapi-[A-Za-z0-9_-]{64})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "openrouter-api-key", Type: "openrouter_api_key", Name: "OpenRouter API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sk-or-v1-"},
		Pattern:  `\b(sk-or-v1-[a-f0-9]{64})`,
		Examples: []string{
			`TOKEN = "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"`,
		},
	},
	{
		ID: "fireworks-api-key", Type: "fireworks_api_key", Name: "Fireworks AI API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"fw_"},
		Pattern:    `\b(fw_[A-Za-z0-9]{24})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "fw_lU9wHuMZTGGjHoDJwgZNCfZE"`,
		},
	},
	{
		ID: "elevenlabs-api-key", Type: "elevenlabs_api_key", Name: "ElevenLabs API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"sk_"},
		Pattern:    `\b(sk_[a-f0-9]{48})`,
		MinEntropy: 3.3,
		Examples: []string{
			`TOKEN = "sk_d0ccd93d7d3e2e62235f03cde860ba126e5c035d21b71150"`,
		},
	},
	{
		ID: "kagi-api-key", Type: "kagi_api_key", Name: "Kagi API key",
		Family: "ai", Severity: SeverityMedium, Evidence: evKeyword,
		Keywords: []string{"kagi"},
		Pattern:  `(?i)kagi[\w.\- ]{0,30}?[\s"\'=:>,]+(?P<secret>(?-i:[A-Za-z0-9_-]{11}\.[A-Za-z0-9_-]{43}))`,
		After:    120,
		Examples: []string{
			`TOKEN = "KAGI_API_KEY=xvMEfOWSFYw.XkiY-tZ23bUhPIdhiT57sc9IVKdUQO25-zEVaMoRetJ"`,
		},
	},
}
