//go:build !lean

package cli

import "github.com/warden-mcp/warden/internal/toolset"

// edition is the build's edition; build with -tags lean for the lean one.
const edition = toolset.EditionFull
