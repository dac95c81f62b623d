package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

// neverLinked are what no build of cmd/warden may link, whatever its
// tags: test and mocking frameworks, a second logger, and trace
// exporters Warden never configures. Each is a substring of an import
// path.
var neverLinked = []struct{ path, why string }{
	{"testify", "a test framework"},
	{"gomock", "a mocking framework"},
	{"golang/mock", "a mocking framework"},
	{"go.uber.org/mock", "a mocking framework"},
	{"logrus", "a second logger: Warden logs with log/slog"},
	{"jaeger", "an exporter Warden never configures: it exports OTLP only"},
	{"zipkin", "an exporter Warden never configures: it exports OTLP only"},
}

// optionalWeight are linked only when their build tag asks for them, so
// that the default binary stays small and quick to build the first time.
var optionalWeight = []struct{ path, tag string }{
	{"github.com/jackc/pgx", "postgres"},
	{"github.com/warden-mcp/warden/store/postgres", "postgres"},
	{"github.com/prometheus/", "prometheus"},
	{"go.opentelemetry.io/", "otel"},
	{"google.golang.org/grpc", "otel"},
	{"google.golang.org/protobuf", "prometheus,otel"},
}

// wardenDeps lists the packages a build of cmd/warden with tags links.
func wardenDeps(t *testing.T, tags string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-tags", tags, "-deps", module+"/cmd/warden").Output()
	if err != nil {
		t.Fatalf("go list -tags %q: %v", tags, err)
	}
	return strings.Fields(string(out))
}

func TestWardenBinaryLinksNoTestFrameworkOrUnusedExporter(t *testing.T) {
	for _, tags := range []string{"", "lean", "postgres,prometheus,otel", "lean,postgres,prometheus,otel"} {
		for _, dep := range wardenDeps(t, tags) {
			for _, n := range neverLinked {
				if strings.Contains(dep, n.path) {
					t.Errorf("cmd/warden (tags %q) links %s: %s", tags, dep, n.why)
				}
			}
		}
	}
}

func TestOptionalWeightOnlyWithItsTag(t *testing.T) {
	def := wardenDeps(t, "")
	full := wardenDeps(t, "postgres,prometheus,otel")
	for _, w := range optionalWeight {
		inFull := false
		for _, dep := range full {
			inFull = inFull || strings.HasPrefix(dep, w.path)
		}
		if !inFull {
			t.Errorf("the build with -tags postgres,prometheus,otel does not link %s: the tag %s no longer brings it", w.path, w.tag)
		}
		for _, dep := range def {
			if strings.HasPrefix(dep, w.path) {
				t.Errorf("the default build of cmd/warden links %s, which belongs behind -tags %s", dep, w.tag)
				break
			}
		}
	}
}
