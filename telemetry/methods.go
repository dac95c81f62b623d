//go:build prometheus || otel

package telemetry

// servedMethods are the JSON-RPC methods counted under their own name;
// any other is "other", so a client cannot grow the label set.
var servedMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true, "prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "completion/complete": true,
	"logging/setLevel": true, "subscriptions/listen": true,
	"tasks/get": true, "tasks/update": true, "tasks/cancel": true,
	"notifications/initialized": true, "notifications/cancelled": true,
	"GET": true, "DELETE": true,
}

func boundMethod(m string) string {
	switch {
	case m == "":
		return "none"
	case servedMethods[m]:
		return m
	}
	return "other"
}
