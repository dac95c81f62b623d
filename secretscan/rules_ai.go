// Code written by hand as data; one family per file.

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
			`TOKEN = "sk-ant-api03-4AqItLmgmt_0X-xA1UiLZeSaVpD6IBRWwmoTIy6z5a8TmWI_kEovoDref5PixLPILQsHGjElLHYcQnKHYXHoM3crFLHgoAA"`,
		},
	},
	{
		ID: "anthropic-admin-key", Type: "anthropic_admin_key", Name: "Anthropic admin API key",
		Family: "ai", Severity: SeverityCritical, Evidence: evPrefix,
		Keywords:   []string{"sk-ant-admin01-"},
		Pattern:    `\b(sk-ant-admin01-[A-Za-z0-9_-]{80,110})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "sk-ant-admin01-Pp1PaEy25_g8IkweMOn1Bcvt8p0mwoxnZcKnmdrV3jng9NO4TkQOIVkxXPw94kXqbsWCbZk8K4VQ9zUaKdxRQHy780rKFAA"`,
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
			`TOKEN = "r8_8qDiDegZbbRt0KrXoLdv0sLX89euFHFPXO9Gr"`,
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
			`TOKEN = "xai-n5A68hFqia8FE1rTEIYgAoGjgLlFmIqXf38wD5ZSzE5XBjB2LqbWhWBm6k4MgN7Gh2osTIuIIJoojugm"`,
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
			`TOKEN = "pcsk_BvRR9u_fpcWwb8dyIk7pNDRfse3tIqniHedb9fv0m2c5OKvAkSaUXzlBYoyOlcJ6QSPS1b"`,
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
			`TOKEN = "fc-0c2a8eb8aa44cb35dc52334dd441eae0"`,
		},
	},
	{
		ID: "jina-api-key", Type: "jina_api_key", Name: "Jina AI API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"jina_"},
		Pattern:    `\b(jina_[A-Za-z0-9_-]{60,64})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "jina_578e8e3793f7a29d8ae8a6edcb923764G0ujshO0SSGcFjE9lmZtiFXCyCQNNO"`,
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
			`TOKEN = "fw_Bo2VmExDckzEKE4hxD2RpHhq"`,
		},
	},
	{
		ID: "elevenlabs-api-key", Type: "elevenlabs_api_key", Name: "ElevenLabs API key",
		Family: "ai", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"sk_"},
		Pattern:    `\b(sk_[a-f0-9]{48})`,
		MinEntropy: 3.3,
		Examples: []string{
			`TOKEN = "sk_2b7e6bb21dcbd5dff97b6745ec1591718428031c8a2341cc"`,
		},
	},
	{
		ID: "kagi-api-key", Type: "kagi_api_key", Name: "Kagi API key",
		Family: "ai", Severity: SeverityMedium, Evidence: evKeyword,
		Keywords: []string{"kagi"},
		Pattern:  `(?i)kagi[\w.\- ]{0,30}?[\s"\'=:>,]+(?P<secret>(?-i:[A-Za-z0-9_-]{11}\.[A-Za-z0-9_-]{43}))`,
		After:    120,
		Examples: []string{
			`TOKEN = "KAGI_API_KEY=cjxGqQiS_jk.46QMZ9lvNzIYiwXWYRdkOSr0opsdCsSqFuBvPB9DNy3"`,
		},
	},
}
