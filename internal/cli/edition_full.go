//go:build !lean

package cli

import "github.com/warden-mcp/warden/tool"

// edition is the build's edition; build with -tags lean for the lean one.
const edition = tool.EditionFull
