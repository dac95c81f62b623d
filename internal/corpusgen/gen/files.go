package gen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

var words = strings.Fields(`account address admin agent alert amount api app archive audit backend batch billing
bucket buffer build cache cart channel chart checkout client cluster config connection consumer content context
count cursor customer dashboard data database deadline debug deploy device digest domain driver email endpoint
engine entry event export feature file filter flag format gateway group handler header health host image index
input invoice item job kernel key label layer level limit listener loader log manager message metric mode model
module monitor name network node notify offset order owner package page parser partition path payload payment
peer pipeline plan plugin policy pool port price process producer profile project provider proxy queue quota
record region registry release report request resource response result retry role route rule runner schedule
schema scope search secret segment sender server service session shard signal size source stage state status
storage store stream subject summary table target task template tenant thread ticket timeout token topic trace
tracker transaction transport trigger upload user value vendor version view volume webhook worker zone`)

func word(r *rand.Rand) string { return words[r.IntN(len(words))] }

func ident(r *rand.Rand, camel bool) string {
	n := 1 + r.IntN(3)
	parts := make([]string, n)
	for i := range parts {
		w := word(r)
		if camel && i > 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		parts[i] = w
	}
	if camel {
		return strings.Join(parts, "")
	}
	return strings.Join(parts, "_")
}

func sentence(r *rand.Rand) string {
	n := 4 + r.IntN(10)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = word(r)
	}
	return strings.Join(ws, " ")
}

// fileKind knows the syntax of one kind of file.
type fileKind struct {
	ext        string
	background func(r *rand.Rand) string
	assignFmt  func(name, value string) string
	commentFmt func(text string) string
}

func (f fileKind) assign(name, value string) string { return f.assignFmt(name, value) }
func (f fileKind) comment(text string) string       { return f.commentFmt(text) }
func (f fileKind) code(text string) string {
	if f.ext == ".go" {
		return "\t" + text
	}
	return f.commentFmt(text)
}

var goLines = []func(r *rand.Rand) string{
	func(r *rand.Rand) string {
		return fmt.Sprintf("\t%s := %s.%s(ctx, %s)", ident(r, true), word(r), title(ident(r, true)), ident(r, true))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("\tif err != nil {\n\t\treturn fmt.Errorf(\"%s: %%w\", err)\n\t}", sentence(r))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("// %s returns the %s.", title(ident(r, true)), sentence(r))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("func (s *%s) %s(ctx context.Context, %s string) error {", title(word(r)), title(ident(r, true)), word(r))
	},
	func(r *rand.Rand) string { return "\ttoken := strings.TrimSpace(req.Header.Get(\"Authorization\"))" },
	func(r *rand.Rand) string { return "\tif password == \"\" {\n\t\treturn errMissingPassword\n\t}" },
	func(r *rand.Rand) string { return fmt.Sprintf("\tkey := fmt.Sprintf(\"%s:%%d\", id)", word(r)) },
	func(r *rand.Rand) string { return fmt.Sprintf("\tsecretName := \"%s-%s\"", word(r), word(r)) },
	func(r *rand.Rand) string { return fmt.Sprintf("\tconst maxTokens = %d", 256+r.IntN(8000)) },
	func(r *rand.Rand) string { return fmt.Sprintf("\t\"github.com/%s/%s/%s\"", word(r), word(r), word(r)) },
	func(r *rand.Rand) string {
		return fmt.Sprintf("\turl := \"https://%s.example.com/%s/%s?page=%d\"", word(r), word(r), word(r), r.IntN(99))
	},
	func(r *rand.Rand) string { return "}" },
	func(r *rand.Rand) string { return "" },
}

var pyLines = []func(r *rand.Rand) string{
	func(r *rand.Rand) string {
		return fmt.Sprintf("    %s = self.%s(%s)", ident(r, false), ident(r, false), word(r))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("def %s(%s, %s=None):", ident(r, false), word(r), word(r))
	},
	func(r *rand.Rand) string { return fmt.Sprintf("    # %s", sentence(r)) },
	func(r *rand.Rand) string { return "    token = request.headers.get('X-Auth-Token')" },
	func(r *rand.Rand) string { return "    password = getpass.getpass()" },
	func(r *rand.Rand) string { return fmt.Sprintf("    logger.info(\"%s %%s\", %s)", sentence(r), word(r)) },
	func(r *rand.Rand) string { return fmt.Sprintf("    api_key_name = \"%s\"", ident(r, false)) },
	func(r *rand.Rand) string { return "" },
}

var yamlLines = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return fmt.Sprintf("  %s: %s", word(r), word(r)) },
	func(r *rand.Rand) string { return fmt.Sprintf("%s:", ident(r, false)) },
	func(r *rand.Rand) string { return fmt.Sprintf("    %s: %d", word(r), r.IntN(10000)) },
	func(r *rand.Rand) string {
		return fmt.Sprintf("  - name: %s\n    value: \"%s\"", ident(r, false), word(r))
	},
	func(r *rand.Rand) string { return "    secretKeyRef:\n      name: app-secrets\n      key: password" },
	func(r *rand.Rand) string {
		return fmt.Sprintf("  image: registry.example.com/%s:%d.%d.%d", word(r), r.IntN(5), r.IntN(20), r.IntN(30))
	},
	func(r *rand.Rand) string { return "  token_type: bearer" },
	func(r *rand.Rand) string { return fmt.Sprintf("# %s", sentence(r)) },
}

var envLines = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return fmt.Sprintf("%s=%s", strings.ToUpper(ident(r, false)), word(r)) },
	func(r *rand.Rand) string {
		return fmt.Sprintf("%s_PORT=%d", strings.ToUpper(word(r)), 1000+r.IntN(60000))
	},
	func(r *rand.Rand) string { return fmt.Sprintf("# %s", sentence(r)) },
	func(r *rand.Rand) string {
		return fmt.Sprintf("%s_URL=https://%s.example.com", strings.ToUpper(word(r)), word(r))
	},
	func(r *rand.Rand) string { return "" },
}

var jsonLines = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return fmt.Sprintf("  \"%s\": \"%s\",", ident(r, true), word(r)) },
	func(r *rand.Rand) string { return fmt.Sprintf("  \"%s\": %d,", ident(r, true), r.IntN(100000)) },
	func(r *rand.Rand) string {
		return fmt.Sprintf("  \"%s\": {\"enabled\": true, \"%s\": \"%s\"},", word(r), word(r), sentence(r))
	},
	func(r *rand.Rand) string { return "  \"keyboard\": {\"layout\": \"us\"}," },
	func(r *rand.Rand) string { return "  \"tokenizer\": \"cl100k_base\"," },
}

var logLines = []func(r *rand.Rand) string{
	func(r *rand.Rand) string {
		return fmt.Sprintf("2026-11-%02dT%02d:%02d:%02d.%03dZ INFO %s: %s id=%d", 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000), word(r), sentence(r), r.IntN(1e6))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("2026-11-%02dT%02d:%02d:%02dZ WARN auth: password reset requested for user=%s", 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), word(r))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("%d.%d.%d.%d - - [30/Nov/2026:01:%02d:%02d +0000] \"GET /%s/%s HTTP/1.1\" 200 %d", r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(60), r.IntN(60), word(r), word(r), r.IntN(99999))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("DEBUG token refresh ok expires_in=%d scope=%s", r.IntN(7200), word(r))
	},
}

var iniLines = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return fmt.Sprintf("[%s]", word(r)) },
	func(r *rand.Rand) string { return fmt.Sprintf("%s = %s", ident(r, false), word(r)) },
	func(r *rand.Rand) string { return fmt.Sprintf("%s.%s=%d", word(r), word(r), r.IntN(1000)) },
	func(r *rand.Rand) string { return fmt.Sprintf("; %s", sentence(r)) },
}

var tfLines = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return fmt.Sprintf("resource \"aws_%s\" \"%s\" {", word(r), word(r)) },
	func(r *rand.Rand) string { return fmt.Sprintf("  %s = \"%s\"", ident(r, false), word(r)) },
	func(r *rand.Rand) string { return fmt.Sprintf("  %s = var.%s", ident(r, false), ident(r, false)) },
	func(r *rand.Rand) string { return "  password = var.db_password" },
	func(r *rand.Rand) string { return "}" },
}

func choose(ls []func(r *rand.Rand) string) func(r *rand.Rand) string {
	return func(r *rand.Rand) string { return ls[r.IntN(len(ls))](r) }
}

var fileKinds = []fileKind{
	{".go", choose(goLines), func(n, v string) string { return fmt.Sprintf("\t%s := %q", camel(n), v) }, func(t string) string { return "// " + t }},
	{".py", choose(pyLines), func(n, v string) string { return fmt.Sprintf("%s = '%s'", strings.ToUpper(n), v) }, func(t string) string { return "# " + t }},
	{".yaml", choose(yamlLines), func(n, v string) string { return fmt.Sprintf("  %s: %s", n, v) }, func(t string) string { return "# " + t }},
	{".env", choose(envLines), func(n, v string) string { return fmt.Sprintf("%s=%s", strings.ToUpper(n), v) }, func(t string) string { return "# " + t }},
	{".json", choose(jsonLines), func(n, v string) string { return fmt.Sprintf("  %q: %q,", camel(n), v) }, func(t string) string { return fmt.Sprintf("  \"_comment\": %q,", t) }},
	{".log", choose(logLines), func(n, v string) string {
		return fmt.Sprintf("2026-11-30T01:02:03Z DEBUG config loaded %s=%s", n, v)
	}, func(t string) string { return "2026-11-30T01:02:03Z INFO " + t }},
	{".ini", choose(iniLines), func(n, v string) string { return fmt.Sprintf("%s = %s", n, v) }, func(t string) string { return "; " + t }},
	{".tf", choose(tfLines), func(n, v string) string { return fmt.Sprintf("  %s = \"%s\"", n, v) }, func(t string) string { return "# " + t }},
}

func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
