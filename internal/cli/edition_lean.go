//go:build lean

package cli

import "github.com/warden-mcp/warden/internal/toolset"

// edition is the build's edition; build without -tags lean for the full one.
const edition = toolset.EditionLean
