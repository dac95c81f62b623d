package isolate

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/errcode"
)

// Serve is the child side. It reads a request from in, sets the
// request's memory and CPU limits on its own process, and runs its job:
// it analyses the file and writes the snapshot, or a coded failure, to
// out; or, for a code job (Runner.RunCode), runs the view's code
// analysis and writes its results as frames. It returns
// an error only when out cannot be written; the process should then
// exit non-zero. Nothing else may write to out: a caller that is a
// whole process should point os.Stdout elsewhere first.
func Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	h, err := readHeader(in)
	if err != nil {
		return writeError(out, errcode.Wrap(binview.CodeAnalysisFailed, "bad request", err))
	}
	if err := limitSelf(h.Memory, h.CPU); err != nil {
		return writeError(out, errcode.Wrap(binview.CodeAnalysisFailed, "cannot apply limits", err))
	}
	if h.Memory > 0 {
		// Make the collector work hard well before the hard limit.
		debug.SetMemoryLimit(h.Memory / 2)
	}
	if h.Job == jobCode {
		return serveCode(ctx, h, in, out)
	}
	o := h.Options
	max := o.MaxFileSize
	if max <= 0 {
		max = binview.DefaultMaxFileSize
	}
	data, err := io.ReadAll(io.LimitReader(in, max+1))
	if err != nil {
		return writeError(out, errcode.Wrap(binview.CodeAnalysisFailed, "cannot read the file", err))
	}
	if int64(len(data)) > max {
		return writeError(out, errcode.New(binview.CodeFileTooLarge, ""))
	}
	a, err := binview.Analyze(ctx, data, &o)
	if err != nil {
		return writeError(out, err)
	}
	enc, err := a.MarshalBinary()
	if err != nil {
		return writeError(out, err)
	}
	if _, err := out.Write(enc); err != nil {
		return fmt.Errorf("write snapshot: %w", err)
	}
	return nil
}

// cpuSeconds rounds a CPU limit up to whole seconds.
func cpuSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
