package toolset

import (
	"context"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/viewstore"
)

// ViewsOf lists a principal's live binary views, oldest first, for the
// console's Binary views page: the same caller digest the tools keep
// them under, so a person sees exactly the views their credential's
// agents opened.
func (b *BinaryViews) ViewsOf(ctx context.Context, p auth.Principal) ([]viewstore.View, error) {
	return b.store.Views(ctx, callerOf(p).key(), b.now())
}
