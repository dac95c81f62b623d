// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

// cloudRules: cloud providers and platform-as-a-service credentials.
var cloudRules = []*rule{
	{
		ID: "aws-access-key-id", Type: "aws_access_key_id", Name: "AWS access key ID",
		Family: "cloud", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords: []string{"AKIA", "ASIA", "ABIA", "ACCA"},
		Pattern:  `\b((?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})`,
		Validate: validAWSKeyID,
		Examples: []string{
			`aws_access_key_id = AKIAIDVWTFKTANGPVYQE`,
			`aws_access_key_id = ASIABEMZUMLENMWFQTRI`,
		},
		NegativeExamples: []string{
			`aws_access_key_id = AKIAIOSFODNN7EXAMPLE`,
			`AKIAER4UISCXD5M2LJG2X`,
		},
	},
	{
		ID: "aws-secret-access-key", Type: "aws_secret_access_key", Name: "AWS secret access key",
		Family: "cloud", Severity: SeverityCritical, Evidence: evKeyword,
		Keywords:   []string{"secret_access_key", "secretaccesskey", "secret-access-key", "aws_secret", "aws-secret"},
		Pattern:    `(?i)(?:secret[_-]?access[_-]?key|aws[_-]?secret(?:[_-]?key)?)[\w-]{0,20}["\']?\s*(?:[:=]|:=|=>)\s*["\']?(?P<secret>(?-i:[A-Za-z0-9/+]{40}))`,
		Before:     24,
		MinEntropy: 3.5,
		Examples: []string{
			`aws_secret_access_key = T908pzIXRxgP8aPN6UHkVk2tY3ZU+tvtw/kzpA+d`,
			`AWS_SECRET_ACCESS_KEY="srnfs0ugb/eBzjJiPxiP4dfdGYAORQ+7Of8wP2NT"`,
			`"SecretAccessKey": "5+PtyrW/rTo4Vpgd/2sNenkCaMLP5Oc2ksE5/mhh"`,
		},
		NegativeExamples: []string{
			`aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`,
			`aws_secret_access_key = ${AWS_SECRET}`,
		},
	},
	{
		ID: "aws-credential-pair", Type: "aws_credential_pair", Name: "AWS access key ID with its secret access key nearby",
		Family: "cloud", Severity: SeverityCritical, Evidence: evStructure,
		Keywords:   []string{"AKIA", "ASIA"},
		Pattern:    `(?s)\b(?P<id>(?:AKIA|ASIA)[A-Z2-7]{16})(?:[^A-Za-z0-9/+]|[^A-Za-z0-9/+].{0,400}?[^A-Za-z0-9/+])(?P<secret>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
		After:      480,
		MinEntropy: 4.0,
		Priority:   1,
		Examples: []string{
			`[default]
aws_access_key_id = AKIARASZ7FPJWAYR6KNT
aws_secret_access_key = KY8bOSYPSy6MHG46vxxMBwJf1W7aaJSAcmpzh3D5
`,
			`AKIAPOB3LATOAYBHITBW:eD8Gd2c/ypLkuCe9W8Tm5enbwETghfhtzjfsV28J `,
		},
	},
	{
		ID: "aws-session-token", Type: "aws_session_token", Name: "AWS session token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords:   []string{"aws_session_token", "aws-session-token", "sessiontoken", "x-amz-security-token"},
		Pattern:    `(?i)(?:aws[_-]?session[_-]?token|sessiontoken|x-amz-security-token)["\']?\s*(?:[:=]|:=)\s*["\']?(?P<secret>(?-i:[A-Za-z0-9/+=]{100,}))`,
		Before:     16,
		After:      1300,
		MinEntropy: 4.0,
		Examples: []string{
			`AWS_SESSION_TOKEN=vUZ7K4k0rWDER2cGX0mRyCsvOnzXt1Zf+d87xjexTaTgR69H3RWrOM2xPWlC1Ub5WCVVXVcrZAlPWQl1zlWS3Pa5IW+5AdVY/qm1GurNMKnXibau0NjkuJpkZsSGero6mNsbp67HHQTYECjEyZJTrlyj+0e9AkCaC1uqkAK/dBUzVnT2+OH4YE6b4tFeINlpiEq9hsPt5l+aCJ+PzvYeC5WdUR6UEBeWiUwcI0kVIs693Aj3oTA8u65FJQ9C6lzWrgNaR67U/8b9NB5nfnRmabD19VdubGl/9PYQpystdU6p`,
		},
	},
	{
		ID: "amazon-mws-auth-token", Type: "amazon_mws_auth_token", Name: "Amazon MWS auth token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"amzn.mws."},
		Pattern:  `\b(amzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`,
		Examples: []string{
			`TOKEN = "amzn.mws.684583c4-1b6b-e5be-df95-140800421611"`,
		},
	},
	{
		ID: "gcp-service-account", Type: "gcp_service_account_key", Name: "Google Cloud service-account JSON key",
		Family: "cloud", Severity: SeverityCritical, Evidence: evStructure,
		Keywords:         []string{"service_account"},
		Pattern:          `(?s)"type"\s*:\s*"service_account".{0,}?"private_key"\s*:\s*"(?P<secret>-----BEGIN[A-Z ]{0,20}PRIVATE KEY-----[^"]{64,}?-----END[A-Z ]{0,20}PRIVATE KEY-----(?:\\n)?)"`,
		Before:           16,
		After:            10000,
		Priority:         2,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`{
  "type": "service_account",
  "project_id": "demo-zqlzil",
  "private_key_id": "1e1e390d8067cda00a190075f1c49e3c5ef63930",
  "private_key": "-----BEGIN PRIVATE KEY-----\nqbMTKOmGn+DAooLwhMRE0U8IUMyNSdEF2d+IEEsI+ADgaUzfTnBfe/9mAMyu9Yzh\np7sHnVtY6lgufsdkfAHcGpxsWiFfKTHJBkLBz1WUF14IMVw4M+dEztP6g1TDReoF\ngCFyoM7mTrYK8NPVcYQZ3cHsak8ftfM12BbzPzhnU9xTiJnkOSxXlX2YlmJ16pvB\nkXssXl2zd1miv3/XOzvu0gWwGIldP/2aLHUnK8msstfiQDpwMGpvRK7dbtR4GJhc\nmxebvIYE1+cQSNOvrK0+qjXAA89NMd/wpHpdhFf/DzlvA76RKZV52x/y4IBJJe0Y\nvaWSBTD04sIa8vt+LEuMG/HmAddz5lIRAjNGMm7QjkLKIWhfKLaaCIX287ttrdY9\nhkVBVO2bRuaPBQv10iAtqBEm5SE3glfIm4KGaD68GTkySfxqPqEV0YaNYeVymsM7\nO4jobIUMDG/r7R9BFqGzyXywDPnbczP44SkobG8hIaqP9WUoQ4xFaLLLN+jYyGt+\nJ2JZFt2PrbpyzX1FLC4y7AMx4l9mATrH2Z/mTElntWuZOj8EG6vbqzc27JnpBLtC\nlDxkWFFsmu/8TDBz87NgjvEQ5he/PdwEg9teSsi9svR6C+apgL7VDa8jdOHAkD87\nMJzR303lWTKbdZ5L/kb9h95m2X5FoCVKYl595PzFdgVl33Fkhm3oh+IewcHnPe4Z\nWUH6zOtZAeR83qIPj3adiDwm++cIJPXsW5bWnBAXyR/NRx90in13I1Ybqy+9U6QS\n-----END PRIVATE KEY-----\n",
  "client_email": "svc@demo.iam.gserviceaccount.com"
}`,
		},
	},
	{
		ID: "gcp-api-key", Type: "gcp_api_key", Name: "Google API key",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"AIza"},
		Pattern:    `\b(AIza[0-9A-Za-z_-]{35})`,
		MinEntropy: 3.0,
		Examples: []string{
			`GOOGLE_API_KEY=AIzazZ5f5gx7JzmNv939djA1891zu5MQ9GVSPfK`,
			`GOOGLE_API_KEY=AIzae1Wz_GA2M8WR6DvmqU16U111FYFKJ_kQjYQ`,
		},
		NegativeExamples: []string{
			`AIzaxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`,
		},
	},
	{
		ID: "gcp-oauth-client-secret", Type: "gcp_oauth_client_secret", Name: "Google OAuth client secret",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"GOCSPX-"},
		Pattern:  `\b(GOCSPX-[0-9A-Za-z_-]{28})`,
		Examples: []string{
			`"client_secret": "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"`,
		},
	},
	{
		ID: "google-oauth-refresh-token", Type: "google_oauth_refresh_token", Name: "Google OAuth refresh token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"1//0"},
		Pattern:    `\b(1//0[0-9A-Za-z_-]{40,120})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "1//0PMlZsHTy2J07ZDBROOJkKGiuLOl447U4lo1TmBRsMxzRK6XfuuKK5xKMwVf1BXqpr9Z3fZt-yxkpwZWNwp19R5U4sBPZou6lVJL"`,
		},
	},
	{
		ID: "google-oauth-access-token", Type: "google_oauth_access_token", Name: "Google OAuth access token",
		Family: "cloud", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords:   []string{"ya29."},
		Pattern:    `\b(ya29\.[0-9A-Za-z_-]{30,300})`,
		MinEntropy: 3.5,
		Examples: []string{
			`TOKEN = "ya29.UI7jqD4Cse9IIi55ra5seepXYFsVbC4U3cNNwTaLLuld81uecK8mqGv2Au-PbWpZMxefJJtyNIfZUbhQXE-vKHneH_R5p166-6j9iqR4G7bBKEGKKCvoxav-"`,
		},
	},
	{
		ID: "azure-storage-account-key", Type: "azure_storage_account_key", Name: "Azure storage account key",
		Family: "cloud", Severity: SeverityCritical, Evidence: evKeyword,
		Keywords: []string{"AccountKey="},
		Pattern:  `AccountKey=(?P<secret>[A-Za-z0-9+/]{86}==)`,
		Validate: validBase64Len(64),
		Examples: []string{
			`AccountKey=aiubTYi5X3fkWsYfcU2CJq6NfEoOaZOx537/uji4jKV1kJJxrdIx9A/AuodAPDqWfI5NV4C5MY5h+6ndB5KdgA==;`,
		},
	},
	{
		ID: "azure-storage-connection-string", Type: "azure_storage_connection_string", Name: "Azure storage connection string",
		Family: "cloud", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"DefaultEndpointsProtocol="},
		Pattern:  `DefaultEndpointsProtocol=https?;AccountName=[\w-]{3,64};AccountKey=(?P<secret>[A-Za-z0-9+/]{86}==)`,
		After:    300,
		Validate: validBase64Len(64),
		Priority: 1,
		Examples: []string{
			`DefaultEndpointsProtocol=https;AccountName=acct0d6gk;AccountKey=16ZGV3rcaV2WhzIz7836Vz86ULQtwBK+EasflcjpbFVm8q8NwuSTC9Wib+ickW9OOWCBPrktzWfdO/vFyGS15A==;EndpointSuffix=core.windows.net`,
		},
	},
	{
		ID: "azure-sas-token", Type: "azure_sas_token", Name: "Azure shared access signature",
		Family: "cloud", Severity: SeverityHigh, Evidence: evStructure,
		Keywords:   []string{"&sig=", "?sig="},
		Pattern:    `[?&]sv=\d{4}-\d{2}-\d{2}[^\s"\'<>]{0,300}?[?&]sig=(?P<secret>[A-Za-z0-9%+/]{40,120}(?:%3D|=){0,2})`,
		Before:     320,
		NoBoundary: true,
		Examples: []string{
			`https://acct.blob.core.windows.net/c/f.txt?sv=2021-06-08&ss=b&srt=o&sp=r&se=2030-01-01T00:00:00Z&sig=iYJfEe69zVGvtWu9gQvBatzbvgZ7MelBgP6l5uJY4CO%3D`,
		},
	},
	{
		ID: "azure-ad-client-secret", Type: "azure_ad_client_secret", Name: "Microsoft Entra ID (Azure AD) client secret",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"Q~"},
		Pattern:    `(?:^|[^A-Za-z0-9_~.-])(?P<secret>[a-zA-Z0-9_~.-]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?:[^A-Za-z0-9_~.-]|$)`,
		Before:     8,
		MinEntropy: 3.5,
		Examples: []string{
			`AZURE_CLIENT_SECRET=nLz8Q~58LTMfNSvAH2UBW2K1fFmIXig7ribaIBsF`,
		},
	},
	{
		ID: "azure-sb-connection-string", Type: "azure_service_bus_connection_string", Name: "Azure Service Bus / Event Hubs connection string",
		Family: "cloud", Severity: SeverityHigh, Evidence: evStructure,
		Keywords: []string{"SharedAccessKey="},
		Pattern:  `Endpoint=sb://[\w.-]{3,120}/?;SharedAccessKeyName=[\w-]{1,64};SharedAccessKey=(?P<secret>[A-Za-z0-9+/]{42,44}=?)`,
		Before:   260,
		Examples: []string{
			`Endpoint=sb://nswiqn.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=3pPrJmm+MPEzZIWftTbz1bhj46PDYqII69bgBghSSSc=`,
		},
	},
	{
		ID: "azure-devops-pat", Type: "azure_devops_pat", Name: "Azure DevOps personal access token (84-character format)",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"AZDO"},
		Pattern:  `\b([A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4})`,
		Before:   90,
		Validate: containsMarker("JQQJ99"),
		Examples: []string{
			`TOKEN = "s8K4PbCC2oGdfDqvkFsTq332jKSeliyl0j8AXVmsPjra3h18XuqHJQQJ99z5MewqoBUJHRlVs6WFAZDOVSwL"`,
		},
	},
	{
		ID: "azure-devops-pat-legacy", Type: "azure_devops_pat", Name: "Azure DevOps personal access token (52-character format) near a DevOps keyword",
		Family: "cloud", Severity: SeverityHigh, Evidence: evKeyword,
		Keywords:   []string{"ado_pat", "azure_devops", "azdo", "devops_pat", "dev.azure.com", "system_accesstoken"},
		Pattern:    `(?i)(?:ado_pat|azure_devops|azdo|devops_pat|dev\.azure\.com|system_accesstoken)[\w.\-/ ]{0,60}?[\s"\'=:>,@]+["\']?(?P<secret>(?-i:[a-z2-7]{52}))`,
		After:      200,
		MinEntropy: 3.5,
		Examples: []string{
			`ado_pat =  "iosz6etotu5g6og4toeicv2bmd7lhzll7vdjoyjqntaqzt43w7o7"`,
		},
	},
	{
		ID: "google-oauth-client-id", Type: "google_oauth_client_id", Name: "Google OAuth client ID (identifier, not a secret on its own)",
		Family: "cloud", Severity: SeverityLow, Evidence: evPrefix,
		Keywords: []string{".apps.googleusercontent.com"},
		Pattern:  `\b(?P<secret>\d{10,14}-[a-z0-9]{32})\.apps\.googleusercontent\.com`,
		Before:   50,
		Examples: []string{
			`GOOGLE_CLIENT_ID=827168968624-uo82qdm8h6dy2rsmzhwz2xtdddncydpc.apps.googleusercontent.com`,
		},
	},
	{
		ID: "alibaba-access-key-id", Type: "alibaba_access_key_id", Name: "Alibaba Cloud AccessKey ID",
		Family: "cloud", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords:   []string{"LTAI"},
		Pattern:    `\b(LTAI[A-Za-z0-9]{12,20})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "LTAIvOsehzFhv69OVpeukDMV"`,
		},
	},
	{
		ID: "tencent-secret-id", Type: "tencent_secret_id", Name: "Tencent Cloud SecretId",
		Family: "cloud", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords:   []string{"AKID"},
		Pattern:    `\b(AKID[A-Za-z0-9]{32})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "AKIDFxaQpnhgILyshKVPetA5xUMHhZ1zizeJ"`,
		},
	},
	{
		ID: "digitalocean-personal-access-token", Type: "digitalocean_personal_access_token", Name: "DigitalOcean personal access token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dop_v1_"},
		Pattern:  `\b(dop_v1_[a-f0-9]{64})`,
		Examples: []string{
			`TOKEN = "dop_v1_aa2746f2ee026fab755a49a0ec4d37eef29972d5bfbb65b94193cc79efb5250f"`,
		},
	},
	{
		ID: "digitalocean-oauth-token", Type: "digitalocean_oauth_token", Name: "DigitalOcean OAuth token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"doo_v1_"},
		Pattern:  `\b(doo_v1_[a-f0-9]{64})`,
		Examples: []string{
			`TOKEN = "doo_v1_5a2d5a1fac1f79f1bf65ce9c838b3ee45a35fbbecbff30f04921b349c6a242aa"`,
		},
	},
	{
		ID: "digitalocean-refresh-token", Type: "digitalocean_refresh_token", Name: "DigitalOcean refresh token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dor_v1_"},
		Pattern:  `\b(dor_v1_[a-f0-9]{64})`,
		Examples: []string{
			`TOKEN = "dor_v1_2679e450e47d15cb7eae2599c38d716c5f1e2dca6cbe8b16d727edee61b4ebb5"`,
		},
	},
	{
		ID: "heroku-api-key-v2", Type: "heroku_api_key", Name: "Heroku platform API key",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"HRKU-AA"},
		Pattern:  `\b(HRKU-AA[0-9A-Za-z_-]{58})`,
		Examples: []string{
			`TOKEN = "HRKU-AA1Y6ce-FbunF9U-6kj162PVhhQrGsB31TalV0Bct32r8JRwAXmpDmKX8Bqm"`,
		},
	},
	{
		ID: "scaleway-access-key", Type: "scaleway_access_key", Name: "Scaleway access key ID",
		Family: "cloud", Severity: SeverityMedium, Evidence: evPrefix,
		Keywords:   []string{"SCW"},
		Pattern:    `\b(SCW[A-Z0-9]{17})`,
		MinEntropy: 3.0,
		Examples: []string{
			`TOKEN = "SCW8J12NJRYMXIQA4AR2"`,
		},
	},
	{
		ID: "cloudflare-origin-ca-key", Type: "cloudflare_origin_ca_key", Name: "Cloudflare Origin CA key",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"v1.0-"},
		Pattern:  `\b(v1\.0-[a-f0-9]{24}-[a-f0-9]{146})`,
		Examples: []string{
			`TOKEN = "v1.0-d18d17266ede988030fee649-824e9b8000a25da1c3da35de771a2d10af8bb5e329eabf3b87f291f11b61d364e74bec5d5334a1e1c403b326069cac32f5a5703a73ca66211c65827af6ff4a74f086f30baacf4364a5"`,
		},
	},
	{
		ID: "yandex-api-key", Type: "yandex_api_key", Name: "Yandex Cloud API key",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"AQVN"},
		Pattern:  `\b(AQVN[A-Za-z0-9_-]{35,38})`,
		Examples: []string{
			`TOKEN = "AQVNEnYIgwLI_W6Gi52y62PxQu1IaU-bjjge_o8z"`,
		},
	},
	{
		ID: "databricks-token", Type: "databricks_token", Name: "Databricks personal access token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dapi"},
		Pattern:  `\b(dapi[a-f0-9]{32}(?:-\d)?)`,
		Examples: []string{
			`TOKEN = "dapif40f1a302eaad77e243d91f2b1a83f41"`,
			`TOKEN = "dapi7988582223c4d077dbbc4d68ff6805e1-2"`,
		},
	},
	{
		ID: "supabase-access-token", Type: "supabase_access_token", Name: "Supabase management access token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"sbp_"},
		Pattern:  `\b(sbp_[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "sbp_39d9218fc1a3b17741740dbc09d9bde37753d1c6"`,
		},
	},
	{
		ID: "flyio-token", Type: "flyio_access_token", Name: "Fly.io access token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"fo1_"},
		Pattern:  `\b(fo1_[\w-]{43})`,
		Examples: []string{
			`TOKEN = "fo1_j9VW_hx6jqa1ElsC_PqSKb3CIVIJsXQHnJGa2P0Ca0l"`,
		},
	},
	{
		ID: "flyio-macaroon", Type: "flyio_macaroon_token", Name: "Fly.io macaroon token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"fm2_"},
		Pattern:    `\b(fm2_[A-Za-z0-9+/=_-]{100,800})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "FlyV1 fm2_CWXPuNVeI/HxA5Q5OkY4PD+FTtPkY/2mDAtAquJytn+gv0S/ZOwNY5wG+Vu1oBZmlbIP6rWlBsMykJ6IJ9BWBTPVr4ld2nVKpbU6OG62EZe1SR9tyQftuld4UqQrPO4xagvpW2eKUmsRId333Lt/KNtFrfggxbtjjqQi3sMge6EZq9H4l7aoSlGDHhcEOIZRmUJhkuv4"`,
		},
	},
	{
		ID: "pulumi-access-token", Type: "pulumi_access_token", Name: "Pulumi access token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"pul-"},
		Pattern:  `\b(pul-[a-f0-9]{40})`,
		Examples: []string{
			`TOKEN = "pul-a7c2a89960095c8d45a203f9a80010b990fda6ba"`,
		},
	},
	{
		ID: "terraform-cloud-token", Type: "terraform_cloud_token", Name: "Terraform Cloud / Enterprise API token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{".atlasv1."},
		Pattern:  `\b([A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70})`,
		Before:   20,
		Examples: []string{
			`TOKEN = "49yQhnmOqM1J8K.atlasv1.CrOKuufenrGUexJu8PiiTnGP08-jiE5pgd5CAae_eTTVXzHZzXVWUc8OmbdmbCHNdSm"`,
		},
	},
	{
		ID: "vault-service-token", Type: "vault_service_token", Name: "HashiCorp Vault service token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"hvs."},
		Pattern:    `\b(hvs\.[A-Za-z0-9_-]{90,300})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "hvs.Rx8tbyA-6X5N5tDejqfeI1TQZijg7y0YqzoEfrA_Kuwy37F7C_-hMWGHeTeaeVltwa42OLFUe3SPCQKeAkL4xIrU8f16UpG"`,
		},
	},
	{
		ID: "vault-batch-token", Type: "vault_batch_token", Name: "HashiCorp Vault batch token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords:   []string{"hvb."},
		Pattern:    `\b(hvb\.[A-Za-z0-9_-]{90,300})`,
		MinEntropy: 4.0,
		Examples: []string{
			`TOKEN = "hvb.65te1xSWG5GCISHtz7IFPpBEki7mBIQOQknbVSthtvPMwf1TrjZ25T-LzK7EtAx4ga_KTftKALr3_VReqv-cRWv9t-3-GvnZzM1aw4qJNuM-mNeumpUVqtS_mQDAhURdtwGFEuTQFO7P"`,
		},
	},
	{
		ID: "doppler-personal-token", Type: "doppler_personal_token", Name: "Doppler personal token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dp.pt."},
		Pattern:  `\b(dp\.pt\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44})`,
		Examples: []string{
			`TOKEN = "dp.pt.lMLXn51WdQ7DnozqEoSqtlQ5wGVuEE9spql3NIvgbIB"`,
		},
	},
	{
		ID: "doppler-service-token", Type: "doppler_service_token", Name: "Doppler service token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dp.st."},
		Pattern:  `\b(dp\.st\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44})`,
		Examples: []string{
			`TOKEN = "dp.st.EawjQWATuJ1dWmGTjRpWO7hnJ2jzKsKRgMbnJcAzmNz"`,
		},
	},
	{
		ID: "doppler-service-account-token", Type: "doppler_service_account_token", Name: "Doppler service account token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dp.sa."},
		Pattern:  `\b(dp\.sa\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44})`,
		Examples: []string{
			`TOKEN = "dp.sa.UJrJRpgy8mElgADwsRc38qSHjIILcBqkGpDGVznSKEm"`,
		},
	},
	{
		ID: "doppler-cli-token", Type: "doppler_cli_token", Name: "Doppler cli token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dp.ct."},
		Pattern:  `\b(dp\.ct\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44})`,
		Examples: []string{
			`TOKEN = "dp.ct.VlBgBl45ZKEReks2IDIfMlflzR5JCBADyyi2VmYHyFg"`,
		},
	},
	{
		ID: "doppler-scim-token", Type: "doppler_scim_token", Name: "Doppler scim token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dp.scim."},
		Pattern:  `\b(dp\.scim\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44})`,
		Examples: []string{
			`TOKEN = "dp.scim.uHBbS62tHiF1fTPMiY6jhtHpd8Pr6OCPFUqUkgtMPVX"`,
		},
	},
	{
		ID: "doppler-audit-token", Type: "doppler_audit_token", Name: "Doppler audit token",
		Family: "cloud", Severity: SeverityHigh, Evidence: evPrefix,
		Keywords: []string{"dp.audit."},
		Pattern:  `\b(dp\.audit\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44})`,
		Examples: []string{
			`TOKEN = "dp.audit.fPoMmpVbdq7kdRWZJfBcoIcKxjnJFgbNoMVIBKhtnKF"`,
		},
	},
}
