package toolset

import (
	"github.com/warden-mcp/warden/tool"
)

// The util_ family: offline utilities for testers. Every tool is
// read-only, closed-world and TrustAuto, with no quota: pure computation
// over what the caller sends, bounded in input (1 MiB), output and work by
// the engines (codec, jwtinspect). One file per tool.

// utilCatalog is the catalog of every util_ tool.
var utilCatalog = tool.Catalog{Category: "utilities", Trust: tool.TrustAuto}

// utilAnnotations: read-only, idempotent, no network.
var utilAnnotations = tool.Annotations{ReadOnly: true, Idempotent: true}

func utilTools(Deps) ([]*tool.Tool, error) {
	var out []*tool.Tool
	for _, build := range []func() (*tool.Tool, error){
		utilEncodeTool, utilDecodeTool, utilHashTool, utilJWTInspectTool, utilCompressTool, utilDecompressTool,
	} {
		t, err := build()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
