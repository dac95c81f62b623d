package plugin

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
	"github.com/warden-mcp/warden/errcode"
)

// The WebAssembly ABI (docs/plugins.md). The module exports memory,
// warden_alloc and warden_call, and may export _initialize (run once per
// instance); it may import the host functions of module "warden" and
// WASI preview 1, which this host serves with no files, no environment,
// no arguments, no sockets and a fake wall clock.
const (
	hostModule   = "warden"
	exportAlloc  = "warden_alloc"
	exportCall   = "warden_call"
	wasmPageSize = 64 << 10
	maxIdle      = 8 // idle instances kept per plugin
)

// wasmHost runs one plugin's module: compiled once, instantiated per
// caller and reused only for the same caller (a plugin's globals never
// carry one tenant's data into another's call).
type wasmHost struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	limits   Limits

	mu   sync.Mutex
	idle []*instance
}

// instance is one instantiated module and the state its host functions
// keep between host_call and host_response.
type instance struct {
	mod   api.Module
	owner string // the caller key it serves
	alloc api.Function
	call  api.Function
	state *instState
	out   *capped // the module's stdout and stderr, for the server log
}

// instState is what host functions reach through the context: the
// current session (nil outside a tool call) and the pending reply.
type instState struct {
	sess    *session
	pending []byte
	has     bool
}

type instKey struct{}

// abiError is a misuse of the ABI that ends the call (a memory range
// outside the module's memory, say).
type abiError struct{ msg string }

func (e *abiError) Error() string { return "ABI violation: " + e.msg }

// compiled caches machine code across runtimes by module content, so a
// plugin reloaded unchanged, or loaded by a test again, is not compiled
// twice.
var compileCache = wazero.NewCompilationCache()

func newWasmHost(ctx context.Context, module []byte, l Limits) (*wasmHost, error) {
	pages := uint32(l.MemoryBytes / wasmPageSize)
	cfg := wazero.NewRuntimeConfig().
		WithCompilationCache(compileCache).
		WithMemoryLimitPages(pages).
		WithCloseOnContextDone(true)
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		return nil, err
	}
	i32 := api.ValueTypeI32
	_, err := rt.NewHostModuleBuilder(hostModule).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(hostCall), []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}).
		WithParameterNames("op_ptr", "op_len", "req_ptr", "req_len").
		Export("host_call").
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(hostResponse), []api.ValueType{i32, i32}, []api.ValueType{i32}).
		WithParameterNames("ptr", "len").
		Export("host_response").
		Instantiate(ctx)
	if err != nil {
		_ = rt.Close(ctx)
		return nil, err
	}
	compiled, err := rt.CompileModule(ctx, module)
	if err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	for name, imp := range importsOf(compiled) {
		if imp != hostModule && imp != wasi_snapshot_preview1.ModuleName {
			_ = rt.Close(ctx)
			return nil, fmt.Errorf("the module imports %s from %q; only %q and %q are served", name, imp, hostModule, wasi_snapshot_preview1.ModuleName)
		}
	}
	exp := compiled.ExportedFunctions()
	for _, name := range []string{exportAlloc, exportCall} {
		if _, ok := exp[name]; !ok {
			_ = rt.Close(ctx)
			return nil, fmt.Errorf("the module does not export %s (see the ABI in docs/plugins.md)", name)
		}
	}
	if _, ok := compiled.ExportedMemories()["memory"]; !ok {
		_ = rt.Close(ctx)
		return nil, errors.New("the module does not export its memory as \"memory\"")
	}
	return &wasmHost{rt: rt, compiled: compiled, limits: l}, nil
}

func importsOf(c wazero.CompiledModule) map[string]string {
	out := map[string]string{}
	for _, f := range c.ImportedFunctions() {
		mod, name, _ := f.Import()
		out[name] = mod
	}
	return out
}

// get returns an idle instance of owner's, or a new one.
func (h *wasmHost) get(ctx context.Context, owner string) (*instance, error) {
	h.mu.Lock()
	for i := len(h.idle) - 1; i >= 0; i-- {
		if in := h.idle[i]; in.owner == owner {
			h.idle = append(h.idle[:i], h.idle[i+1:]...)
			h.mu.Unlock()
			return in, nil
		}
	}
	h.mu.Unlock()
	st := &instState{}
	out := &capped{max: 64 << 10}
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions("_initialize").
		WithStdout(out).WithStderr(out).
		WithSysNanotime().
		WithRandSource(rand.Reader)
	// Start-up runs under the call's deadline too: a module that loops
	// in _initialize is stopped like one that loops in a call.
	mod, err := h.rt.InstantiateModule(context.WithValue(ctx, instKey{}, st), h.compiled, cfg)
	if err != nil {
		return nil, err
	}
	return &instance{mod: mod, owner: owner, alloc: mod.ExportedFunction(exportAlloc),
		call: mod.ExportedFunction(exportCall), state: st, out: out}, nil
}

// put keeps a healthy instance for its owner's next call.
func (h *wasmHost) put(ctx context.Context, in *instance) {
	h.mu.Lock()
	if len(h.idle) >= maxIdle {
		old := h.idle[0]
		h.idle = h.idle[1:]
		h.mu.Unlock()
		_ = old.mod.Close(ctx)
		h.mu.Lock()
	}
	h.idle = append(h.idle, in)
	h.mu.Unlock()
}

// invoke runs one tool call in an instance of owner's and returns the
// module's reply (the JSON of warden_call's answer).
func (h *wasmHost) invoke(ctx context.Context, s *session, owner, name string, args []byte) ([]byte, error) {
	in, err := h.get(ctx, owner)
	if err != nil {
		return nil, h.failure(ctx, err, nil)
	}
	in.state.sess, in.state.pending, in.state.has = s, nil, false
	ok := false
	defer func() {
		in.state.sess, in.state.pending = nil, nil
		if ok {
			h.put(context.WithoutCancel(ctx), in)
		} else {
			_ = in.mod.Close(context.WithoutCancel(ctx))
		}
	}()
	// The module is closed when the call's context ends: the runtime
	// (CloseOnContextDone) watches the context it is handed and stops the
	// compiled code at its next loop head or call, closing the module
	// without freeing what a running host function may still read. (An
	// own watcher calling CloseWithExitCode raced with WASI functions
	// reading the module's system context, under -race.)
	defer func() {
		if ctx.Err() != nil {
			ok = false // the context ended: the module is closed, or closing
		}
	}()
	cctx := context.WithValue(ctx, instKey{}, in.state)
	payload := append([]byte(name), args...)
	res, err := in.alloc.Call(cctx, uint64(len(payload)))
	if err != nil {
		return nil, h.failure(ctx, err, in)
	}
	ptr := uint32(res[0])
	if !in.mod.Memory().Write(ptr, payload) {
		return nil, errcode.New(CodePluginError, "the plugin's warden_alloc returned memory it does not have")
	}
	res, err = in.call.Call(cctx, uint64(ptr), uint64(len(name)), uint64(ptr)+uint64(len(name)), uint64(len(args)))
	if err != nil {
		return nil, h.failure(ctx, err, in)
	}
	rptr, rlen := uint32(res[0]>>32), uint32(res[0])
	if int64(rlen) > h.limits.OutputBytes {
		return nil, errcode.New(CodeOutputTooBig, fmt.Sprintf("the plugin's answer is larger than the output cap (%d bytes)", h.limits.OutputBytes))
	}
	b, okRead := in.mod.Memory().Read(rptr, rlen)
	if !okRead {
		return nil, errcode.New(CodePluginError, "the plugin's answer lies outside its memory")
	}
	ok = true
	return append([]byte(nil), b...), nil
}

// failure turns a module's failure into the call's error: the cause
// (the trap, the stack) goes to the log, the code and a short message to
// the client.
func (h *wasmHost) failure(ctx context.Context, err error, in *instance) error {
	var exit *sys.ExitError
	var abi *abiError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded:
		return errcode.Wrap(CodeTimeout, "the plugin ran past plugin_timeout and was stopped", err)
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeContextCanceled:
		return errcode.Wrap("cancelled", "the call was cancelled", err)
	case errors.As(err, &abi):
		return errcode.Wrap(CodePluginError, "the plugin broke the host ABI: "+abi.msg, err)
	case in != nil && in.mod.Memory() != nil && uint64(in.mod.Memory().Size())+wasmPageSize > uint64(h.limits.MemoryBytes):
		return errcode.Wrap(CodeMemory, fmt.Sprintf("the plugin reached its memory ceiling (%d MiB)", h.limits.MemoryBytes>>20), err)
	}
	if in != nil && in.out.Len() > 0 {
		err = fmt.Errorf("%w; module output: %s", err, clip(in.out.String(), 2048))
	}
	return errcode.Wrap("internal_error", "the plugin failed (it trapped or exited); this call only is affected", err)
}

func (h *wasmHost) close(ctx context.Context) error {
	h.mu.Lock()
	h.idle = nil
	h.mu.Unlock()
	return h.rt.Close(ctx)
}

// hostCall is warden.host_call(op_ptr, op_len, req_ptr, req_len) -> len:
// it runs the host function op with the JSON request and returns the
// length of the reply, which host_response copies out.
func hostCall(ctx context.Context, m api.Module, stack []uint64) {
	st, _ := ctx.Value(instKey{}).(*instState)
	op := readMem(m, uint32(stack[0]), uint32(stack[1]), 64)
	req := readMem(m, uint32(stack[2]), uint32(stack[3]), maxHostRequest)
	var reply []byte
	if st == nil || st.sess == nil {
		reply = replyErr(CodeHostOutOfTurn, "host functions are available only while a tool call runs")
	} else {
		reply = st.sess.dispatch(string(op), req)
	}
	if st != nil {
		st.pending, st.has = reply, true
	}
	stack[0] = uint64(uint32(len(reply)))
}

// hostResponse is warden.host_response(ptr, len) -> n: it copies the
// pending reply into the module's memory and returns its length, or -1
// when no reply is pending.
func hostResponse(ctx context.Context, m api.Module, stack []uint64) {
	st, _ := ctx.Value(instKey{}).(*instState)
	if st == nil || !st.has {
		stack[0] = uint64(uint32(0xffffffff)) // -1
		return
	}
	ptr, n := uint32(stack[0]), uint32(stack[1])
	if int(n) < len(st.pending) {
		panic(&abiError{msg: "host_response was given a buffer shorter than the reply host_call announced"})
	}
	if !m.Memory().Write(ptr, st.pending) {
		panic(&abiError{msg: "host_response was given a buffer outside the module's memory"})
	}
	stack[0] = uint64(uint32(len(st.pending)))
	st.pending, st.has = nil, false
}

// readMem reads a range of the module's memory the module named,
// ending the call when the range is not there or too long.
func readMem(m api.Module, ptr, n uint32, max int) []byte {
	if int64(n) > int64(max) {
		panic(&abiError{msg: fmt.Sprintf("a host call argument is longer than %d bytes", max)})
	}
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		panic(&abiError{msg: "a host call named memory outside the module's memory"})
	}
	return append([]byte(nil), b...)
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (c *capped) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.buf)
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf)
}
