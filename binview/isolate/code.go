package isolate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/funcs"
	"github.com/warden-mcp/warden/errcode"
)

// A code job's child writes frames on its standard output, each a kind
// byte, a 4-byte big-endian length and a JSON header, then a 4-byte
// length and a binary body: progress, a stage's result (a function list
// or a graph in package funcs's encoding), and one last frame, the end
// (done, or a coded failure).
const (
	frameProgress = 'p'
	frameResult   = 'r'
	frameDone     = 'd'
	frameError    = 'e'
)

// frameHeader is a frame's JSON part.
type frameHeader struct {
	Progress binview.CodeProgress `json:"progress"`
	Stage    binview.CodeStage    `json:"stage,omitempty"`
	Partial  bool                 `json:"partial,omitempty"`
	Warnings []string             `json:"warnings,omitempty"`
	// An end's failure: the code and, for analysis_limit, which limit.
	Code  string `json:"code,omitempty"`
	Limit string `json:"limit,omitempty"`
	Max   int64  `json:"max,omitempty"`
}

// writeFrame writes one frame.
func writeFrame(w io.Writer, kind byte, h frameHeader, body []byte) error {
	hb, err := json.Marshal(h)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, 9+len(hb))
	buf = append(buf, kind)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(hb)))
	buf = append(buf, hb...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(body)))
	if _, err := w.Write(buf); err != nil {
		return err
	}
	_, err = w.Write(body)
	return err
}

// readFrame reads one frame, refusing a header over maxHeader bytes and
// a body over maxBody.
func readFrame(r io.Reader, maxBody int64) (byte, frameHeader, []byte, error) {
	var h frameHeader
	var pre [5]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return 0, h, nil, err
	}
	n := binary.BigEndian.Uint32(pre[1:])
	if n > maxHeader {
		return 0, h, nil, fmt.Errorf("frame header of %d bytes", n)
	}
	hb := make([]byte, n)
	if _, err := io.ReadFull(r, hb); err != nil {
		return 0, h, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(hb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return 0, h, nil, fmt.Errorf("frame header: %w", err)
	}
	var ln [4]byte
	if _, err := io.ReadFull(r, ln[:]); err != nil {
		return 0, h, nil, err
	}
	bn := int64(binary.BigEndian.Uint32(ln[:]))
	if bn > maxBody {
		return 0, h, nil, errFrameTooLarge
	}
	body := make([]byte, bn)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, h, nil, err
	}
	return pre[0], h, body, nil
}

var errFrameTooLarge = errors.New("frame body over the limit")

// codeCodes are the failures a code job's child may report, with the
// messages the parent gives them.
var codeCodes = map[string]string{
	binview.CodeAnalysisTimeout: "the code analysis ran out of time; what it found is kept",
	"analysis_cancelled":        "the code analysis was cancelled",
	binview.CodeUnsupportedArch: "the code of this architecture cannot be analysed",
	binview.CodeAnalysisFailed:  "the code analysis failed: the file is malformed or hostile",
	binview.CodeInvalidSnapshot: "the analysis does not match the file",
	"invalid_image":             "the file's code cannot be analysed",
	"internal_error":            "the code analysis failed",
}

// endFrame is the last frame of a code job that stopped on err.
func endFrame(err error) (byte, frameHeader) {
	if err == nil {
		return frameDone, frameHeader{}
	}
	if limit, ok := budget.IsLimit(err); ok {
		e, _ := errcode.As(err)
		m, _ := e.Details["max"].(int64)
		return frameError, frameHeader{Code: budget.Code, Limit: limit, Max: m}
	}
	code := errcode.CodeOf(err)
	if _, ok := codeCodes[code]; !ok {
		code = binview.CodeAnalysisFailed
	}
	return frameError, frameHeader{Code: code}
}

// endError is the parent's error for a child's end frame.
func endError(h frameHeader) error {
	if h.Code == budget.Code {
		for k := budget.Kind(0); k.String() != "unknown"; k++ {
			if k.String() == h.Limit && h.Max > 0 {
				return budget.LimitError(k, h.Max)
			}
		}
		return failed(ReasonBadOutput, fmt.Errorf("unknown limit %q", h.Limit))
	}
	msg, ok := codeCodes[h.Code]
	if !ok {
		return failed(ReasonBadOutput, fmt.Errorf("unknown child code %q", h.Code))
	}
	return errcode.New(h.Code, msg)
}

// serveCode is the child side of a code job: it reads the snapshot and
// the file, runs binview.RunCode and writes its updates as frames.
func serveCode(ctx context.Context, h header, in io.Reader, out io.Writer) error {
	bw := bufio.NewWriterSize(out, 1<<16)
	end := func(err error) error {
		kind, fh := endFrame(err)
		if werr := writeFrame(bw, kind, fh, nil); werr != nil {
			return werr
		}
		return bw.Flush()
	}
	snap := make([]byte, h.Snapshot)
	if _, err := io.ReadFull(in, snap); err != nil {
		return end(errcode.Wrap(binview.CodeAnalysisFailed, "cannot read the snapshot", err))
	}
	a, err := binview.UnmarshalAnalysis(snap)
	if err != nil {
		return end(err)
	}
	snap = nil
	if a.FileSize < 0 || a.FileSize > binview.MaxSnapshotSize<<2 {
		return end(errcode.New(binview.CodeInvalidSnapshot, ""))
	}
	data := make([]byte, a.FileSize)
	if _, err := io.ReadFull(in, data); err != nil {
		return end(errcode.Wrap(binview.CodeAnalysisFailed, "cannot read the file", err))
	}
	var werr error
	job := binview.CodeJob{Data: data, Analysis: a, Options: h.Options, Stage: h.Stage}
	err = binview.RunCode(ctx, job, func(u binview.CodeUpdate) {
		if werr != nil {
			return
		}
		fh := frameHeader{Progress: u.Progress}
		if u.Stage == binview.CodePending {
			werr = writeFrame(bw, frameProgress, fh, nil)
			if werr == nil {
				werr = bw.Flush()
			}
			return
		}
		fh.Stage, fh.Partial, fh.Warnings = u.Stage, u.Partial, u.Warnings
		var body []byte
		if u.Graph != nil {
			body, werr = u.Graph.MarshalBinary()
		} else {
			body = funcs.AppendFunctions(nil, u.Functions)
		}
		if werr == nil {
			werr = writeFrame(bw, frameResult, fh, body)
		}
		if werr == nil {
			werr = bw.Flush()
		}
	})
	if werr != nil {
		return fmt.Errorf("write frame: %w", werr)
	}
	return end(err)
}

// RunCode runs job in a child process, as binview.RunCode would in
// this one, so that a Runner is a binview.CodeRunner: the parent sends
// the view's analysis snapshot and file, the child runs the stages under
// the job's budget and writes each stage's result (a function list, the
// graph) as it ends; RunCode decodes them, counting what it allocates
// against the job's byte limit, and reports them in order. The child has
// the Runner's memory limit, and the job's CodeTimeout (at least the
// Runner's CPU limit) of CPU time and, ten seconds more, of wall clock.
// Results reported before a failure stay reported. Errors: the
// analysis's own (analysis_timeout, analysis_limit, ...) or, when the
// child dies, analysis_failed and analysis_timeout as for Analyze.
func (r *Runner) RunCode(ctx context.Context, job binview.CodeJob, report func(binview.CodeUpdate)) error {
	l := r.Limits.withDefaults()
	o := job.Options
	o.CodeRunner = nil
	code := o.CodeTimeout
	if code <= 0 {
		code = binview.DefaultCodeTimeout
	}
	slack := 10 * time.Second
	if l.Wall > l.CPU {
		slack = l.Wall - l.CPU
	}
	l.CPU = max(l.CPU, code)
	l.Wall = code + slack
	snap, err := job.Analysis.MarshalBinary()
	if err != nil {
		return err
	}
	lim := o.Limits.WithDefaults()
	h := header{Job: jobCode, Options: o, Memory: l.Memory, CPU: cpuSeconds(l.CPU), Stage: job.Stage, Snapshot: int64(len(snap))}
	c, err := r.start(ctx, l, h, nil, job.Data, snap)
	if err != nil {
		if ctx.Err() != nil {
			return codeCtxErr(ctx)
		}
		return err
	}
	defer c.cancel()
	out := &countingReader{r: bufio.NewReaderSize(c.stdout, 1<<16), max: l.MaxOutput}
	var known []funcs.Function
	var end error
	gotEnd := false
	for !gotEnd {
		kind, fh, body, err := readFrame(out, lim.Bytes/2)
		if err != nil {
			if errors.Is(err, errFrameTooLarge) || out.over {
				end = failed(ReasonTooLarge, err)
			} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				end = failed(ReasonBadOutput, err)
			}
			break
		}
		switch kind {
		case frameProgress:
			report(binview.CodeUpdate{Progress: fh.Progress})
		case frameResult:
			u := binview.CodeUpdate{Progress: fh.Progress, Stage: fh.Stage, Partial: fh.Partial, Warnings: fh.Warnings}
			bud := budget.New(lim)
			switch {
			case fh.Stage == binview.CodeReferences:
				if known == nil {
					known = job.Known
				}
				u.Graph, err = funcs.UnmarshalGraph(body, known, bud)
			case fh.Stage == binview.CodeMetadata || fh.Stage == binview.CodeFunctions:
				u.Functions, err = funcs.DecodeFunctions(body, bud)
				known = u.Functions
			default:
				err = fmt.Errorf("result of stage %d", fh.Stage)
			}
			if err != nil {
				if _, ok := budget.IsLimit(err); ok {
					end = err
				} else {
					end = failed(ReasonBadOutput, err)
				}
				gotEnd = true
				break
			}
			report(u)
		case frameDone:
			gotEnd = true
		case frameError:
			end, gotEnd = endError(fh), true
		default:
			end, gotEnd = failed(ReasonBadOutput, fmt.Errorf("frame kind %q", kind)), true
		}
	}
	if end != nil && errcode.CodeOf(end) == binview.CodeAnalysisFailed {
		// The child misbehaved: stop it.
		c.kill()
	}
	werr := c.wait()
	if ctx.Err() != nil {
		return codeCtxErr(ctx)
	}
	if end != nil {
		return end
	}
	if err := c.failure(ctx, werr, l, out.over); err != nil {
		return err
	}
	if !gotEnd {
		return failed(ReasonBadOutput, errors.New("the child ended without an end frame"))
	}
	return nil
}

// codeCtxErr is a code job's error when its context ended first: the
// view's time ran out (analysis_timeout) or the view was closed
// (analysis_cancelled), as in process.
func codeCtxErr(ctx context.Context) error {
	err := ctx.Err()
	if errors.Is(err, context.DeadlineExceeded) {
		return errcode.Wrap(binview.CodeAnalysisTimeout, codeCodes[binview.CodeAnalysisTimeout], err).WithDetail("reason", ReasonWallClock)
	}
	return errcode.Wrap("analysis_cancelled", codeCodes["analysis_cancelled"], err)
}

// countingReader fails past max bytes.
type countingReader struct {
	r    io.Reader
	n    int64
	max  int64
	over bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n >= c.max {
		c.over = true
		return 0, errFrameTooLarge
	}
	if int64(len(p)) > c.max-c.n {
		p = p[:c.max-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

var _ binview.CodeRunner = (*Runner)(nil)
