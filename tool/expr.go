package tool

import (
	"context"
	"errors"

	"github.com/warden-mcp/warden/tool/addrexpr"
)

// viewEvaluator evaluates expression parameters against the view when it
// is an addrexpr.Target, and against no target (numbers and operators
// only) otherwise.
func viewEvaluator(ctx context.Context, v View) func(expr string, integer bool, base uint64) (uint64, error) {
	t, _ := v.(addrexpr.Target)
	if ctx == nil {
		ctx = context.Background()
	}
	return func(expr string, integer bool, base uint64) (uint64, error) {
		if integer {
			return addrexpr.EvalInteger(ctx, expr, t, base)
		}
		return addrexpr.Evaluate(ctx, expr, t)
	}
}

// publicExprError keeps the parser's public message and drops any cause.
func publicExprError(err error) string {
	var e *addrexpr.Error
	if errors.As(err, &e) {
		return e.Error()
	}
	return "the expression cannot be evaluated"
}
