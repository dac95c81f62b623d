package isolate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/warden-mcp/warden/binview"
)

// Default limits of a Runner.
const (
	// DefaultMemory is the child's memory limit: RLIMIT_DATA, the
	// private writable memory it maps (its heap), not its address space,
	// most of which the Go runtime reserves without using.
	DefaultMemory = 1 << 30
	// DefaultCPU is the child's CPU-time limit.
	DefaultCPU = 30 * time.Second
	// DefaultWall is the child's wall-clock limit.
	DefaultWall = 40 * time.Second
	// DefaultMaxOutput bounds the snapshot read from the child.
	DefaultMaxOutput = 256 << 20
	// maxStderr bounds what is kept of the child's standard error.
	maxStderr = 16 << 10
)

// Limits bound one child. Zero fields select the defaults.
type Limits struct {
	// Memory is the limit on the child's private writable memory (its
	// heap, RLIMIT_DATA) in bytes. Zero: DefaultMemory.
	Memory int64
	// CPU is the CPU-time limit, rounded up to whole seconds. Zero:
	// DefaultCPU.
	CPU time.Duration
	// Wall is the wall-clock limit, after which the child is killed.
	// Zero: DefaultWall.
	Wall time.Duration
	// MaxOutput bounds the snapshot, in bytes. Zero: DefaultMaxOutput.
	MaxOutput int64
}

func (l Limits) withDefaults() Limits {
	if l.Memory <= 0 {
		l.Memory = DefaultMemory
	}
	if l.CPU <= 0 {
		l.CPU = DefaultCPU
	}
	if l.Wall <= 0 {
		l.Wall = DefaultWall
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = DefaultMaxOutput
	}
	return l
}

// Runner is the parent side: it runs Path with Args (an executable that
// calls Serve, such as "warden analyze-worker") once per analysis. A
// Runner is safe for concurrent use.
type Runner struct {
	// Path is the executable; Args its arguments (not including Path).
	Path string
	Args []string
	// Env is the child's environment. Nil: an empty one, so nothing of
	// the server's environment (tokens, keys) reaches the child.
	Env []string
	// Limits bound each child.
	Limits Limits
	// Stderr, if set, receives up to 16 KiB of each failed child's
	// standard error, for logs. Nil: discarded.
	Stderr func(tail []byte)

	// onExit, in tests, sees every child's exit status (its peak RSS).
	onExit func(*os.ProcessState)
}

// Analyze runs binview.Analyze on data in a child process and returns
// the decoded snapshot. It has the signature of binview.Analyze, so the
// wiring can choose either. Errors are *errcode.Error with code
// analysis_timeout or analysis_failed (reason in Details), or a code
// the analysis itself returned (unsupported_format, file_too_large, ...).
func (r *Runner) Analyze(ctx context.Context, data []byte, opts *binview.Options) (*binview.Analysis, error) {
	l := r.Limits.withDefaults()
	var o binview.Options
	if opts != nil {
		o = *opts
	}
	o.CodeRunner = nil
	max := o.MaxFileSize
	if max <= 0 {
		max = binview.DefaultMaxFileSize
	}
	if int64(len(data)) > max {
		_, err := binview.Analyze(ctx, data, &o) // the engine's own file_too_large
		return nil, err
	}
	stdout := &limitedBuffer{max: l.MaxOutput}
	c, err := r.start(ctx, l, header{Options: o, Memory: l.Memory, CPU: cpuSeconds(l.CPU)}, stdout, data)
	if err != nil {
		return nil, err
	}
	defer c.cancel()
	werr := c.wait()
	if err := c.failure(ctx, werr, l, stdout.over); err != nil {
		return nil, err
	}
	return parseResult(stdout.Bytes())
}

// child is one started child process.
type child struct {
	r      *Runner
	cmd    *exec.Cmd
	wctx   context.Context
	cancel context.CancelFunc
	// stdout is the child's standard output when start was given no
	// writer for it.
	stdout io.Reader
	stderr *limitedBuffer
	// written receives the request writer's result.
	written chan error
	waited  bool
	werr    error
}

// start starts a child under l, writes the request (h, then pre, then
// data) to its standard input in the background, and gives its standard
// output to stdout (nil: a pipe, c.stdout).
func (r *Runner) start(ctx context.Context, l Limits, h header, stdout *limitedBuffer, data []byte, pre ...[]byte) (*child, error) {
	wctx, cancel := context.WithTimeout(ctx, l.Wall)
	cmd := exec.CommandContext(wctx, r.Path, r.Args...)
	cmd.Env = r.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.WaitDelay = 2 * time.Second
	c := &child{r: r, cmd: cmd, wctx: wctx, cancel: cancel, written: make(chan error, 1)}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, failed(ReasonStart, err)
	}
	if stdout != nil {
		cmd.Stdout = stdout
	} else if c.stdout, err = cmd.StdoutPipe(); err != nil {
		cancel()
		return nil, failed(ReasonStart, err)
	}
	c.stderr = &limitedBuffer{max: maxStderr, keepTail: true}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		cancel()
		if ctx.Err() != nil {
			return nil, timedOut(ReasonCanceled, ctx.Err())
		}
		return nil, failed(ReasonStart, err)
	}
	if stdout != nil {
		stdout.onOver = c.kill
	}
	if err := limitChild(cmd.Process.Pid, l.Memory, h.CPU); err != nil {
		c.kill()
		_ = cmd.Wait()
		cancel()
		return nil, failed(ReasonStart, fmt.Errorf("prlimit: %w", err))
	}
	go func() {
		err := writeRequest(stdin, h, data, pre...)
		stdin.Close()
		c.written <- err
	}()
	return c, nil
}

func (c *child) kill() { _ = c.cmd.Process.Kill() }

// wait waits for the child to exit (once) and for the request writer.
func (c *child) wait() error {
	if !c.waited {
		c.waited = true
		c.werr = c.cmd.Wait()
		<-c.written // a write error shows as the child's failure
		if c.r.onExit != nil && c.cmd.ProcessState != nil {
			c.r.onExit(c.cmd.ProcessState)
		}
	}
	return c.werr
}

// failure maps how a child ended to the caller's error: nil when it
// exited normally and in time.
func (c *child) failure(ctx context.Context, err error, l Limits, tooLarge bool) error {
	logTail := func() {
		if c.r.Stderr != nil {
			c.r.Stderr(c.stderr.Bytes())
		}
	}
	switch {
	case ctx.Err() != nil:
		return timedOut(ReasonCanceled, ctx.Err())
	case tooLarge:
		logTail()
		return failed(ReasonTooLarge, fmt.Errorf("more than %d bytes of output", l.MaxOutput))
	case c.wctx.Err() != nil:
		return timedOut(ReasonWallClock, fmt.Errorf("killed after %v", l.Wall))
	}
	if err == nil {
		return nil
	}
	logTail()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if sig, ok := signaled(ee); ok {
			used := ee.UserTime() + ee.SystemTime()
			if cpuKill(sig, used, l.CPU) {
				return timedOut(ReasonCPU, fmt.Errorf("%v after %v of CPU", sig, used))
			}
			return failed(ReasonKilled, fmt.Errorf("killed by %v", sig))
		}
	}
	if nearMemoryLimit(c.cmd.ProcessState, l.Memory, c.stderr.Bytes()) {
		return failed(ReasonMemory, err)
	}
	return failed(ReasonCrashed, fmt.Errorf("%w (peak RSS %d)", err, maxRSS(c.cmd.ProcessState)))
}

// nearMemoryLimit tells, as well as can be told, a child that died of
// the memory limit. Analyze recovers panics, so a child that exits
// abnormally has met a fatal runtime error; when the Go runtime cannot
// map memory it says "out of memory", or it crashes with SIGSEGV in the
// collector. A peak resident size of half the limit counts too (the
// limit counts mapped heap, which runs far ahead of what is resident).
func nearMemoryLimit(ps *os.ProcessState, limit int64, stderr []byte) bool {
	tail := string(stderr)
	for _, s := range []string{"out of memory", "cannot allocate memory", "failed to reserve", "failed to allocate", "SIGSEGV"} {
		if strings.Contains(tail, s) {
			return true
		}
	}
	return ps != nil && maxRSS(ps) >= limit/2
}

// limitedBuffer keeps at most max bytes: the first ones, or with
// keepTail the last ones.
type limitedBuffer struct {
	buf      bytes.Buffer
	max      int64
	over     bool
	keepTail bool
	// onOver is called once when the limit is passed.
	onOver func()
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if b.keepTail {
		b.buf.Write(p)
		if int64(b.buf.Len()) > b.max {
			tail := append([]byte(nil), b.buf.Bytes()[int64(b.buf.Len())-b.max:]...)
			b.buf.Reset()
			b.buf.Write(tail)
		}
		return n, nil
	}
	if room := b.max - int64(b.buf.Len()); int64(len(p)) > room {
		if !b.over && b.onOver != nil {
			b.onOver()
		}
		b.over = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		// Refuse the rest: the child gets EPIPE-like errors and stops.
		return 0, io.ErrShortWrite
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) Bytes() []byte { return b.buf.Bytes() }
