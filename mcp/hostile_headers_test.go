package mcp_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

type peerRegionIn struct {
	Region string `json:"region" header:"Region" desc:"Region" maxLength:"64"`
	Count  *int   `json:"count,omitempty" header:"Count" desc:"Count"`
	Dry    *bool  `json:"dry,omitempty" header:"Dry" desc:"Dry run"`
}

// TestHostileMirroredParams: tool arguments marked x-mcp-header must be
// mirrored into Mcp-Param-* headers exactly (strings as they are, Base64
// sentinel decoded strictly, integers numerically, booleans as
// true/false); anything else is 400 / -32020.
func TestHostileMirroredParams(t *testing.T) {
	reg := tool.NewRegistry()
	tool.Add(reg, peerDef("peer_region", "Echoes a region mirrored into headers."),
		func(ctx context.Context, c *tool.Call, in peerRegionIn) (string, error) { return in.Region, nil })
	srv := mcp.NewServer(reg, nil)
	t.Cleanup(srv.Close)
	ts := httptest.NewServer(mcp.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)

	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	call := func(args string) string {
		return modernBody("1", "tools/call", `"name":"peer_region","arguments":`+args)
	}
	hdr := func(kv ...string) http.Header {
		h := with(modernHeaders("tools/call"), "Mcp-Name", "peer_region")
		for i := 0; i+1 < len(kv); i += 2 {
			h.Add(kv[i], kv[i+1])
		}
		return h
	}
	cases := []struct {
		name   string
		h      http.Header
		body   string
		status int
		code   int
	}{
		{"string matches", hdr("Mcp-Param-Region", "eu-west"), call(`{"region":"eu-west"}`), 200, 0},
		{"header name case", hdr("mcp-param-region", "eu-west"), call(`{"region":"eu-west"}`), 200, 0},
		{"surrounding spaces", hdr("Mcp-Param-Region", "  eu-west  "), call(`{"region":"eu-west"}`), 200, 0},
		{"missing", hdr(), call(`{"region":"eu-west"}`), 400, mcp.CodeHeaderMismatch},
		{"differs", hdr("Mcp-Param-Region", "us-east"), call(`{"region":"eu-west"}`), 400, mcp.CodeHeaderMismatch},
		{"value case", hdr("Mcp-Param-Region", "EU-WEST"), call(`{"region":"eu-west"}`), 400, mcp.CodeHeaderMismatch},
		{"twice", hdr("Mcp-Param-Region", "eu-west", "Mcp-Param-Region", "eu-west"), call(`{"region":"eu-west"}`), 400, mcp.CodeHeaderMismatch},
		{"base64 non-ASCII", hdr("Mcp-Param-Region", b64("Zürich")), call(`{"region":"Zürich"}`), 200, 0},
		{"base64 of another value", hdr("Mcp-Param-Region", b64("Basel")), call(`{"region":"Zürich"}`), 400, mcp.CodeHeaderMismatch},
		{"base64 not padded", hdr("Mcp-Param-Region", "=?base64?ZXUtd2VzdA?="), call(`{"region":"eu-west"}`), 400, mcp.CodeHeaderMismatch},
		{"base64 bad alphabet", hdr("Mcp-Param-Region", "=?base64?ZXUtd2V*dA==?="), call(`{"region":"eu-west"}`), 400, mcp.CodeHeaderMismatch},
		{"sentinel prefix only is literal", hdr("Mcp-Param-Region", "=?base64?abc"), call(`{"region":"=?base64?abc"}`), 200, 0},
		{"integer matches", hdr("Mcp-Param-Region", "x", "Mcp-Param-Count", "42"), call(`{"region":"x","count":42}`), 200, 0},
		{"integer compared numerically", hdr("Mcp-Param-Region", "x", "Mcp-Param-Count", "042"), call(`{"region":"x","count":42}`), 200, 0},
		{"integer differs", hdr("Mcp-Param-Region", "x", "Mcp-Param-Count", "41"), call(`{"region":"x","count":42}`), 400, mcp.CodeHeaderMismatch},
		{"integer not a number", hdr("Mcp-Param-Region", "x", "Mcp-Param-Count", "forty-two"), call(`{"region":"x","count":42}`), 400, mcp.CodeHeaderMismatch},
		{"integer missing", hdr("Mcp-Param-Region", "x"), call(`{"region":"x","count":42}`), 400, mcp.CodeHeaderMismatch},
		{"null argument needs no header", hdr("Mcp-Param-Region", "x"), call(`{"region":"x","count":null}`), 200, 0},
		{"boolean matches", hdr("Mcp-Param-Region", "x", "Mcp-Param-Dry", "true"), call(`{"region":"x","dry":true}`), 200, 0},
		{"boolean spelled True", hdr("Mcp-Param-Region", "x", "Mcp-Param-Dry", "True"), call(`{"region":"x","dry":true}`), 400, mcp.CodeHeaderMismatch},
		{"boolean as 1", hdr("Mcp-Param-Region", "x", "Mcp-Param-Dry", "1"), call(`{"region":"x","dry":true}`), 400, mcp.CodeHeaderMismatch},
		{"boolean differs", hdr("Mcp-Param-Region", "x", "Mcp-Param-Dry", "false"), call(`{"region":"x","dry":true}`), 400, mcp.CodeHeaderMismatch},
		// The check reads the body's argument, whatever its JSON type:
		// a string argument with a number in it does not match.
		{"string argument given as number", hdr("Mcp-Param-Region", "7"), call(`{"region":7}`), 400, mcp.CodeHeaderMismatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body, code := send(t, ts, post(tc.h, tc.body))
			if status != tc.status || code != tc.code {
				t.Errorf("got %d / %d, want %d / %d; body %s", status, code, tc.status, tc.code, trunc(body))
			}
		})
	}
}
