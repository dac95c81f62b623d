package plugin

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/warden-mcp/warden/errcode"
)

// The Python host runs each call in a child process of its own, started
// for the call and killed after it, so no call sees another's state.
// The protocol is JSON lines over the child's standard input and output
// (docs/plugins.md):
//
//	host → child: {"type":"call","tool":NAME,"arguments":{...}}
//	child → host: {"type":"host","op":OP,"request":{...}}   (any number)
//	host → child: {"type":"reply","reply":{"ok":...}|{"error":{...}}}
//	child → host: {"type":"result","result":VALUE} | {"type":"result","error":{"code","message"}}
type pythonHost struct {
	interp string
	script string
	dir    string
	limits Limits
	env    []string
}

// pythonDirs are where the interpreter is looked for: fixed system
// directories, never the server's PATH.
var pythonDirs = []string{"/usr/bin", "/usr/local/bin", "/bin"}

func newPythonHost(script string, l Limits, o *Options) (*pythonHost, error) {
	if runtime.GOOS != "linux" {
		// Only there can the child's limits be set (prlimit).
		return nil, errors.New("runtime python: Python plugins run on Linux only")
	}
	script, err := filepath.Abs(script)
	if err != nil {
		return nil, err
	}
	interp := o.Python
	if interp == "" {
		for _, d := range pythonDirs {
			p := filepath.Join(d, "python3")
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				interp = p
				break
			}
		}
	}
	if interp == "" {
		return nil, errors.New("runtime python: no python3 interpreter in " + fmt.Sprint(pythonDirs))
	}
	env := o.PythonEnv
	if env == nil {
		env = []string{}
	}
	return &pythonHost{interp: interp, script: script, dir: filepath.Dir(script), limits: l, env: env}, nil
}

func (h *pythonHost) close(context.Context) error { return nil }

type pyMsg struct {
	Type      string          `json:"type"`
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Op        string          `json:"op,omitempty"`
	Request   json.RawMessage `json:"request,omitempty"`
	Reply     json.RawMessage `json:"reply,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     json.RawMessage `json:"error,omitempty"`
}

// invoke starts the child, sends the call, serves its host calls and
// returns its answer in the form a WebAssembly module gives it.
func (h *pythonHost) invoke(ctx context.Context, s *session, _ string, name string, args []byte) ([]byte, error) {
	// -E ignores PYTHON* variables, -s the user's site directory, -B
	// writes no bytecode next to the plugin.
	cmd := exec.CommandContext(ctx, h.interp, "-E", "-s", "-B", h.script)
	cmd.Dir = h.dir
	cmd.Env = h.env
	ownGroup(cmd)
	cmd.WaitDelay = time.Second
	stderr := &capped{max: 16 << 10}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, errcode.Wrap("internal_error", "the plugin's interpreter could not start", err)
	}
	defer func() {
		_ = killGroup(cmd)
		_ = cmd.Wait()
	}()
	cpu := int64(h.limits.Timeout/time.Second) + 1
	if err := limitChild(cmd.Process.Pid, h.limits.MemoryBytes, cpu); err != nil {
		return nil, errcode.Wrap("internal_error", "the plugin's limits could not be set", err)
	}
	enc := json.NewEncoder(stdin)
	if err := enc.Encode(pyMsg{Type: "call", Tool: name, Arguments: args}); err != nil {
		return nil, h.failure(ctx, err, stderr)
	}
	// A line is at most the output cap (the answer) or a host request.
	r := bufio.NewReaderSize(stdout, 64<<10)
	max := int(h.limits.OutputBytes) + 1024
	for {
		line, err := readLine(r, max)
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				return nil, errcode.New(CodeOutputTooBig, fmt.Sprintf("the plugin's answer is larger than the output cap (%d bytes)", h.limits.OutputBytes))
			}
			return nil, h.failure(ctx, err, stderr)
		}
		var m pyMsg
		if json.Unmarshal(line, &m) != nil {
			return nil, errcode.New(CodePluginError, "the plugin wrote a line that is not a protocol message (print to stderr, not stdout)")
		}
		switch m.Type {
		case "host":
			if len(m.Request) > maxHostRequest {
				return nil, errcode.New(CodePluginError, "a host call request is larger than 64 KiB")
			}
			reply := s.dispatch(m.Op, m.Request)
			if err := enc.Encode(pyMsg{Type: "reply", Reply: reply}); err != nil {
				return nil, h.failure(ctx, err, stderr)
			}
		case "result":
			out := map[string]json.RawMessage{}
			if m.Error != nil {
				out["error"] = m.Error
			} else {
				out["result"] = m.Result
			}
			return json.Marshal(out)
		default:
			return nil, errcode.New(CodePluginError, "the plugin sent an unknown protocol message")
		}
	}
}

func (h *pythonHost) failure(ctx context.Context, err error, stderr *capped) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return errcode.Wrap(CodeTimeout, "the plugin ran past plugin_timeout and was stopped", err)
	case ctx.Err() != nil:
		return errcode.Wrap("cancelled", "the call was cancelled", err)
	}
	if stderr.Len() > 0 {
		err = fmt.Errorf("%w; stderr: %s", err, clip(stderr.String(), 2048))
	}
	return errcode.Wrap("internal_error", "the plugin exited without an answer; this call only is affected", err)
}

var errLineTooLong = errors.New("line too long")

func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max {
			return nil, errLineTooLong
		}
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}
