package gen

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"net/url"
	"strings"
)

const (
	alnum  = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	hexLow = "0123456789abcdef"
	upNum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b32    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b64    = alnum + "+/"
	b64url = alnum + "-_"
	lowNum = "abcdefghijklmnopqrstuvwxyz0123456789"
)

func pick(r *rand.Rand, cs string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = cs[r.IntN(len(cs))]
	}
	return string(b)
}

func base62(n uint32, width int) string {
	b := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		b[i] = alnum[n%62]
		n /= 62
	}
	return string(b)
}

// crcToken builds prefix + 30 random characters + base62 CRC32 (GitHub, npm).
func crcToken(r *rand.Rand, prefix string) string {
	body := pick(r, alnum, 30)
	return prefix + body + base62(crc32.ChecksumIEEE([]byte(body)), 6)
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

func b64url64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func jwt(r *rand.Rand) string {
	h, _ := json.Marshal(map[string]string{"alg": "HS256", "typ": "JWT"})
	p, _ := json.Marshal(map[string]any{"sub": pick(r, lowNum, 12), "iat": 1700000000 + r.IntN(9e7), "role": "service"})
	return b64url64(h) + "." + b64url64(p) + "." + b64url64(randBytes(r, 32))
}

func pem(r *rand.Rand, label string) string {
	der := append([]byte{0x30, 0x82, 0x04, 0xa4}, randBytes(r, 1188)...)
	body := base64.StdEncoding.EncodeToString(der)
	var b strings.Builder
	b.WriteString("-----BEGIN " + label + "-----\n")
	for len(body) > 64 {
		b.WriteString(body[:64] + "\n")
		body = body[64:]
	}
	b.WriteString(body + "\n-----END " + label + "-----")
	return b.String()
}

func password(r *rand.Rand) string {
	const sym = "!#%&*+-.:;=?@^_~"
	n := 10 + r.IntN(10)
	b := []byte(pick(r, alnum, n))
	b[r.IntN(n)] = sym[r.IntN(len(sym))]
	b[r.IntN(n)] = "0123456789"[r.IntN(10)]
	return string(b)
}

// secretKind is one planted credential format: its ground-truth type and a
// generator of (value, one or more lines in the file's syntax).
type secretKind struct {
	typ   string
	value func(r *rand.Rand) string
	// multiline values (PEM) are written as-is, with the key line first.
	multiline bool
	// name is the configuration key used when the value is assigned.
	name string
}

var secretKinds = []secretKind{
	{typ: "github_personal_access_token", name: "github_token", value: func(r *rand.Rand) string { return crcToken(r, "ghp_") }},
	{typ: "github_fine_grained_pat", name: "gh_pat", value: func(r *rand.Rand) string {
		return "github_pat_" + pick(r, alnum, 22) + "_" + pick(r, alnum, 59)
	}},
	{typ: "gitlab_personal_access_token", name: "gitlab_token", value: func(r *rand.Rand) string { return "glpat-" + pick(r, b64url, 20) }},
	{typ: "slack_bot_token", name: "slack_bot_token", value: func(r *rand.Rand) string {
		return "xoxb-" + pick(r, "0123456789", 12) + "-" + pick(r, "0123456789", 13) + "-" + pick(r, alnum, 24)
	}},
	{typ: "stripe_live_secret_key", name: "stripe_secret_key", value: func(r *rand.Rand) string { return "sk_live_" + pick(r, alnum, 24+r.IntN(76)) }},
	{typ: "aws_access_key_id", name: "aws_access_key_id", value: func(r *rand.Rand) string { return "AKIA" + pick(r, b32, 16) }},
	{typ: "aws_secret_access_key", name: "aws_secret_access_key", value: func(r *rand.Rand) string { return pick(r, b64, 40) }},
	{typ: "gcp_api_key", name: "google_api_key", value: func(r *rand.Rand) string { return "AIza" + pick(r, b64url, 35) }},
	{typ: "openai_api_key", name: "openai_api_key", value: func(r *rand.Rand) string {
		return "sk-proj-" + pick(r, b64url, 74) + "T3BlbkFJ" + pick(r, b64url, 74)
	}},
	{typ: "anthropic_api_key", name: "anthropic_api_key", value: func(r *rand.Rand) string { return "sk-ant-api03-" + pick(r, b64url, 93) + "AA" }},
	{typ: "npm_access_token", name: "npm_token", value: func(r *rand.Rand) string { return crcToken(r, "npm_") }},
	{typ: "pypi_upload_token", name: "pypi_token", value: func(r *rand.Rand) string {
		mac := append([]byte("\x01\x08pypi.org\x02"), randBytes(r, 90)...)
		return "pypi-AgEIcHlwaS5vcmc" + b64url64(mac)[14:]
	}},
	{typ: "sendgrid_api_key", name: "sendgrid_api_key", value: func(r *rand.Rand) string {
		return "SG." + pick(r, b64url, 22) + "." + pick(r, b64url, 43)
	}},
	{typ: "huggingface_access_token", name: "hf_token", value: func(r *rand.Rand) string {
		return "hf_" + pick(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34)
	}},
	{typ: "dockerhub_personal_access_token", name: "docker_token", value: func(r *rand.Rand) string { return "dckr_pat_" + pick(r, b64url, 27) }},
	{typ: "digitalocean_personal_access_token", name: "do_token", value: func(r *rand.Rand) string { return "dop_v1_" + pick(r, hexLow, 64) }},
	{typ: "shopify_access_token", name: "shopify_token", value: func(r *rand.Rand) string { return "shpat_" + pick(r, hexLow, 32) }},
	{typ: "json_web_token", name: "session_jwt", value: jwt},
	{typ: "rsa_private_key", multiline: true, value: func(r *rand.Rand) string { return pem(r, "RSA PRIVATE KEY") }},
	{typ: "pkcs8_private_key", multiline: true, value: func(r *rand.Rand) string { return pem(r, "PRIVATE KEY") }},
	{typ: "postgresql_connection_url", name: "database_url", value: func(r *rand.Rand) string {
		return "postgres://svc_" + pick(r, lowNum, 5) + ":" + pick(r, alnum, 18) + "@db-" + pick(r, lowNum, 6) + ".internal:5432/app"
	}},
	{typ: "mongodb_connection_url", name: "mongo_uri", value: func(r *rand.Rand) string {
		return "mongodb+srv://app:" + pick(r, alnum, 16) + "@cluster0." + pick(r, lowNum, 5) + ".mongodb.net/prod?retryWrites=true"
	}},
	{typ: "redis_connection_url", name: "redis_url", value: func(r *rand.Rand) string {
		return "redis://default:" + pick(r, alnum, 20) + "@cache-" + pick(r, lowNum, 4) + ":6379/0"
	}},
	{typ: "password", name: "db_password", value: password},
	{typ: "generic_api_key", name: "api_key", value: func(r *rand.Rand) string { return pick(r, hexLow, 32) }},
	{typ: "generic_secret", name: "client_secret", value: func(r *rand.Rand) string { return pick(r, alnum, 40) }},
	{typ: "telegram_bot_token", name: "telegram_token", value: func(r *rand.Rand) string {
		return pick(r, "123456789", 1) + pick(r, "0123456789", 9) + ":AA" + pick(r, b64url, 33)
	}},
	{typ: "slack_webhook_url", name: "slack_webhook", value: func(r *rand.Rand) string {
		return "https://hooks.slack.com/services/T" + pick(r, upNum, 8) + "/B" + pick(r, upNum, 10) + "/" + pick(r, alnum, 24)
	}},
	{typ: "azure_storage_account_key", name: "azure_conn", value: func(r *rand.Rand) string {
		return "DefaultEndpointsProtocol=https;AccountName=st" + pick(r, lowNum, 8) + ";AccountKey=" + base64.StdEncoding.EncodeToString(randBytes(r, 64)) + ";EndpointSuffix=core.windows.net"
	}},
	{typ: "vault_service_token", name: "vault_token", value: func(r *rand.Rand) string { return "hvs." + pick(r, b64url, 95) }},
	{typ: "datadog_api_key", name: "datadog_api_key", value: func(r *rand.Rand) string { return pick(r, hexLow, 32) }},
	{typ: "url_with_credentials", name: "git_remote", value: func(r *rand.Rand) string {
		return "https://deploy:" + pick(r, alnum, 20) + "@git." + pick(r, lowNum, 6) + ".example.org/org/repo.git"
	}},
	{typ: "twilio_api_key", name: "twilio_key_sid", value: func(r *rand.Rand) string { return "SK" + pick(r, hexLow, 32) }},
	{typ: "mailgun_api_key", name: "mailgun_key", value: func(r *rand.Rand) string { return "key-" + pick(r, hexLow, 32) }},
	{typ: "square_access_token", name: "square_token", value: func(r *rand.Rand) string { return "EAAA" + pick(r, b64url, 60) }},
	{typ: "braintree_access_token", name: "braintree_token", value: func(r *rand.Rand) string {
		return "access_token$production$" + pick(r, lowNum, 16) + "$" + pick(r, hexLow, 32)
	}},
	{typ: "discord_webhook_url", name: "discord_webhook", value: func(r *rand.Rand) string {
		return "https://discord.com/api/webhooks/" + pick(r, "0123456789", 18) + "/" + pick(r, b64url, 68)
	}},
	{typ: "jdbc_connection_string", name: "jdbc_url", value: func(r *rand.Rand) string {
		return "jdbc:mysql://db." + pick(r, lowNum, 5) + ".internal:3306/app?user=svc&password=" + pick(r, alnum, 16)
	}},
	{typ: "database_connection_string", name: "conn_string", value: func(r *rand.Rand) string {
		return "Server=tcp:sql-" + pick(r, lowNum, 5) + ".internal,1433;Database=app;User ID=svc;Password=" + pick(r, alnum, 16) + ";Encrypt=true"
	}},
	{typ: "npm_legacy_auth_token", name: "npmrc", value: func(r *rand.Rand) string {
		return "//registry.npmjs.org/:_authToken=" + uuid(r)
	}},
	{typ: "gitlab_pipeline_trigger_token", name: "gitlab_trigger", value: func(r *rand.Rand) string { return "glptt-" + pick(r, hexLow, 40) }},
	{typ: "sentry_user_token", name: "sentry_token", value: func(r *rand.Rand) string { return "sntryu_" + pick(r, hexLow, 64) }},
	{typ: "age_secret_key", name: "age_key", value: func(r *rand.Rand) string {
		return "AGE-SECRET-KEY-1" + pick(r, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
	}},
	{typ: "openssh_private_key", multiline: true, value: func(r *rand.Rand) string {
		body := base64.StdEncoding.EncodeToString(append([]byte("openssh-key-v1\x00"), randBytes(r, 380)...))
		var b strings.Builder
		b.WriteString("-----BEGIN OPENSSH PRIVATE KEY-----\n")
		for len(body) > 70 {
			b.WriteString(body[:70] + "\n")
			body = body[70:]
		}
		b.WriteString(body + "\n-----END OPENSSH PRIVATE KEY-----")
		return b.String()
	}},
	// Encoded layers: the credential is only visible after decoding.
	{typ: "github_personal_access_token", name: "config_b64", value: func(r *rand.Rand) string {
		return base64.StdEncoding.EncodeToString([]byte("export GITHUB_TOKEN=" + crcToken(r, "ghp_") + "\n"))
	}},
	{typ: "postgresql_connection_url", name: "dsn_escaped", value: func(r *rand.Rand) string {
		return url.QueryEscape("postgres://svc:" + pick(r, alnum, 18) + "@db." + pick(r, lowNum, 5) + ".internal:5432/app")
	}},
	{typ: "password", name: "settings_json", value: func(r *rand.Rand) string {
		b, _ := json.Marshal(map[string]string{"password": password(r)})
		return strings.ReplaceAll(string(b), `"`, `\"`)
	}},
}

// decoy is a line that looks like a credential but is not one.
type decoy struct {
	kind string
	line func(r *rand.Rand, f fileKind) string
}

func uuid(r *rand.Rand) string {
	return pick(r, hexLow, 8) + "-" + pick(r, hexLow, 4) + "-4" + pick(r, hexLow, 3) + "-a" + pick(r, hexLow, 3) + "-" + pick(r, hexLow, 12)
}

var decoys = []decoy{
	{"placeholder_x", func(r *rand.Rand, f fileKind) string { return f.assign("github_token", "ghp_"+strings.Repeat("x", 36)) }},
	{"placeholder_angle", func(r *rand.Rand, f fileKind) string { return f.assign("api_key", "<YOUR_API_KEY>") }},
	{"placeholder_your", func(r *rand.Rand, f fileKind) string { return f.assign("api_key", "your_api_key_here") }},
	{"placeholder_changeme", func(r *rand.Rand, f fileKind) string { return f.assign("password", "changeme") }},
	{"placeholder_var", func(r *rand.Rand, f fileKind) string { return f.assign("db_password", "${DB_PASSWORD}") }},
	{"placeholder_template", func(r *rand.Rand, f fileKind) string { return f.assign("secret", "{{ .Values.secret }}") }},
	{"one_char_run", func(r *rand.Rand, f fileKind) string {
		return f.assign("stripe_key", "sk_live_"+strings.Repeat("0", 24))
	}},
	{"example_aws_id", func(r *rand.Rand, f fileKind) string { return f.assign("aws_access_key_id", "AKIAIOSFODNN7EXAMPLE") }},
	{"example_aws_secret", func(r *rand.Rand, f fileKind) string {
		return f.assign("aws_secret_access_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	}},
	{"docs_stripe_test_key", func(r *rand.Rand, f fileKind) string {
		return f.assign("stripe_key", "sk_test_4eC39HqLyjWDarjtT1zdp7dc")
	}},
	{"sha256_hash", func(r *rand.Rand, f fileKind) string { return f.assign("sha256", pick(r, hexLow, 64)) }},
	{"git_commit", func(r *rand.Rand, f fileKind) string { return f.comment("commit " + pick(r, hexLow, 40)) }},
	{"uuid", func(r *rand.Rand, f fileKind) string { return f.assign("request_id", uuid(r)) }},
	{"version", func(r *rand.Rand, f fileKind) string {
		return f.assign("version", fmt.Sprintf("%d.%d.%d", r.IntN(9), r.IntN(30), r.IntN(50)))
	}},
	{"env_reference", func(r *rand.Rand, f fileKind) string { return f.code(`token := os.Getenv("GITHUB_TOKEN")`) }},
	{"masked", func(r *rand.Rand, f fileKind) string { return f.assign("password", "********") }},
	{"integrity", func(r *rand.Rand, f fileKind) string {
		return f.assign("integrity", "sha512-"+base64.StdEncoding.EncodeToString(randBytes(r, 64)))
	}},
	{"placeholder_url", func(r *rand.Rand, f fileKind) string {
		return f.assign("database_url", "postgres://user:password@localhost:5432/app")
	}},
	{"null_value", func(r *rand.Rand, f fileKind) string { return f.assign("api_token", "null") }},
	{"replace_me", func(r *rand.Rand, f fileKind) string { return f.assign("client_secret", "REPLACE_ME") }},
	{"redacted", func(r *rand.Rand, f fileKind) string { return f.assign("password", "<redacted>") }},
	{"example_key_x", func(r *rand.Rand, f fileKind) string {
		return f.assign("aws_access_key_id", "AKIA"+strings.Repeat("X", 16))
	}},
	{"md5_checksum", func(r *rand.Rand, f fileKind) string { return f.assign("md5", pick(r, hexLow, 32)) }},
	{"sha1_digest", func(r *rand.Rand, f fileKind) string { return f.assign("digest", "sha1:"+pick(r, hexLow, 40)) }},
	{"etag", func(r *rand.Rand, f fileKind) string { return f.assign("etag", pick(r, hexLow, 32)) }},
	{"jwt_io_sample", func(r *rand.Rand, f fileKind) string {
		return f.assign("example_jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
	}},
	{"ssh_public_key", func(r *rand.Rand, f fileKind) string {
		return f.comment("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + pick(r, b64, 43) + " deploy@" + pick(r, lowNum, 6))
	}},
	{"certificate", func(r *rand.Rand, f fileKind) string { return pem(r, "CERTIFICATE") }},
	{"public_key_pem", func(r *rand.Rand, f fileKind) string { return pem(r, "PUBLIC KEY") }},
	{"binary_base64", func(r *rand.Rand, f fileKind) string {
		return f.assign("thumbnail", base64.StdEncoding.EncodeToString(randBytes(r, 120)))
	}},
	{"image_digest", func(r *rand.Rand, f fileKind) string {
		return f.assign("image", "registry.example.com/app@sha256:"+pick(r, hexLow, 64))
	}},
	{"example_slack", func(r *rand.Rand, f fileKind) string { return f.assign("slack_token", "xoxb-your-bot-token-here") }},
	{"bearer_placeholder", func(r *rand.Rand, f fileKind) string {
		return f.comment("curl -H 'Authorization: Bearer YOUR_TOKEN' https://api.example.com")
	}},
	{"example_github", func(r *rand.Rand, f fileKind) string {
		return f.assign("github_token", "ghp_EXAMPLEexampleEXAMPLEexampleEXAMPLE1")
	}},
	{"empty_quoted", func(r *rand.Rand, f fileKind) string { return f.assign("api_key", `""`) }},
	{"random_build_id", func(r *rand.Rand, f fileKind) string { return f.assign("build_id", pick(r, alnum, 32)) }},
}
