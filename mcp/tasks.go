package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/warden-mcp/warden/internal/jsonwalk"
	"github.com/warden-mcp/warden/tool"
)

// The io.modelcontextprotocol/tasks extension lets a long call - a website
// scan, say - answer at once with a task id; the client polls tasks/get for
// the outcome, answers the task's questions with tasks/update and stops it
// with tasks/cancel. A tool opts in with Def.Tasks and becomes a task when
// its handler calls Call.Detach on a request whose client declared the
// extension.

const taskExtension = "io.modelcontextprotocol/tasks"

// Task bounds.
const (
	taskTTL  = 10 * time.Minute
	taskPoll = 250 * time.Millisecond
	maxTasks = 10000
	// maxTasksPerCaller bounds one credential's tasks, running or kept.
	maxTasksPerCaller = 256
	taskWorking       = "working"
	taskInput         = "input_required"
	taskDone          = "completed"
	taskFailed        = "failed"
	taskCanceled      = "cancelled"
)

type task struct {
	id      string
	caller  string
	tool    *tool.Tool
	args    json.RawMessage
	created time.Time
	expires time.Time
	cancel  context.CancelFunc
	base    context.Context // the creating request's values, without its cancellation

	caps   clientCaps // what the creating request declared
	client string     // the creating request's client name

	mu      sync.Mutex
	status  string
	updated time.Time
	result  []byte
	errCode int
	errMsg  string
	pending map[string]tool.InputRequest
	answers map[string]json.RawMessage
	state   []byte
}

func (t *task) terminal() bool {
	return t.status == taskDone || t.status == taskFailed || t.status == taskCanceled
}

type taskStore struct {
	mu    sync.Mutex
	tasks map[string]*task
}

func newTaskStore() *taskStore { return &taskStore{tasks: map[string]*task{}} }

func (ts *taskStore) add(t *task) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	now := time.Now()
	for id, old := range ts.tasks {
		if now.After(old.expires) {
			old.stop()
			delete(ts.tasks, id)
		}
	}
	if len(ts.tasks) >= maxTasks {
		return false
	}
	mine := 0
	for _, old := range ts.tasks {
		if old.caller == t.caller {
			mine++
		}
	}
	if t.caller != "" && mine >= maxTasksPerCaller {
		return false // the call runs to its end in the request instead
	}
	ts.tasks[t.id] = t
	return true
}

func (ts *taskStore) get(id, caller string) (*task, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.tasks[id]
	if !ok || t.caller != caller || time.Now().After(t.expires) {
		return nil, false
	}
	return t, true
}

func missingTasksCapability() *Error {
	e := rpcErr(CodeMissingCapability, KindInvalid, "the client must declare the "+taskExtension+" extension for this request")
	e.Data = map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{taskExtension: map[string]any{}}}}
	return e
}

// switchSink forwards to the request's sink until the call detaches; a
// task's later progress has no stream to go to.
type switchSink struct {
	mu   sync.Mutex
	sink Sink
}

func (s *switchSink) Send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sink == nil {
		return nil
	}
	return s.sink.Send(msg)
}

func (s *switchSink) off() {
	s.mu.Lock()
	s.sink = nil
	s.mu.Unlock()
}

// callAsTask runs a task-capable tool for a client that declared the
// extension. Until the handler detaches, the call is an ordinary one; after,
// the client gets a CreateTaskResult and the handler runs on.
func (s *Server) callAsTask(ctx context.Context, x *exchange, t *tool.Tool, args json.RawMessage, r *rounds) ([]byte, *Error) {
	tctx, tcancel := context.WithTimeout(context.WithoutCancel(ctx), taskTTL)
	now := time.Now()
	tk := &task{
		id: newID(), caller: callerOf(ctx), tool: t, args: append(json.RawMessage(nil), args...),
		created: now, updated: now, expires: now.Add(taskTTL), cancel: tcancel,
		base: context.WithoutCancel(ctx), status: taskWorking, answers: r.answers, caps: x.caps, client: x.client,
	}
	sink := &switchSink{sink: x.sink}
	tx := *x
	tx.sink = sink
	env := s.callEnv(ctx, &tx, r)
	detached := make(chan struct{})
	var once sync.Once
	ok := true
	env.Detach = func() bool {
		once.Do(func() {
			if ok = s.tasks.add(tk); ok {
				sink.off()
				close(detached)
			}
		})
		return ok
	}
	done := make(chan tool.Outcome, 1)
	go func() { done <- s.runTool(tctx, t, args, env, x.callInfo(env)) }()
	isDetached := func() bool {
		select {
		case <-detached:
			return true
		default:
			return false
		}
	}
	select {
	case res := <-done:
		if isDetached() {
			s.settle(tk, res, r)
			return s.createTaskResult(tk), nil
		}
		tcancel()
		if res.Interrupt != nil {
			return s.interrupted(x, r, res.Interrupt)
		}
		return s.toolResult(x, res.Result)
	case <-detached:
		go func() { s.settle(tk, <-done, r) }()
		return s.createTaskResult(tk), nil
	case <-ctx.Done():
		if !isDetached() {
			tcancel()
			res := <-done
			if isDetached() {
				// It detached while the client left: settle the task
				// rather than leave it working until its TTL.
				s.settle(tk, res, r)
			}
			return nil, nil
		}
		go func() { s.settle(tk, <-done, r) }()
		return s.createTaskResult(tk), nil
	}
}

// settle records how a task's run ended.
func (s *Server) settle(tk *task, res tool.Outcome, r *rounds) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.updated = time.Now()
	if tk.status == taskCanceled {
		return
	}
	if res.Interrupt == nil {
		b, err := res.Result.MarshalJSON()
		if err != nil {
			tk.status, tk.errCode, tk.errMsg = taskFailed, CodeInternalError, "internal error"
			return
		}
		tk.status = taskDone
		tk.result = s.finish(&exchange{modern: true}, b, false)
		return
	}
	var pe *tool.ProtocolError
	var mc *tool.MissingCapabilityError
	switch {
	case errors.Is(res.Interrupt.Err, tool.ErrInputRequired):
		tk.status = taskInput
		tk.pending = res.Interrupt.Pending
		tk.state = res.Interrupt.State
		if r != nil && r.answers != nil {
			tk.answers = r.answers
		}
	case errors.As(res.Interrupt.Err, &pe):
		tk.status, tk.errCode, tk.errMsg = taskFailed, pe.Code, pe.Message
	case errors.As(res.Interrupt.Err, &mc):
		tk.status, tk.errCode, tk.errMsg = taskFailed, CodeMissingCapability, mc.Error()
	default:
		tk.status, tk.errCode, tk.errMsg = taskFailed, CodeInternalError, "internal error"
	}
}

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (s *Server) createTaskResult(tk *task) []byte {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	b, _ := json.Marshal(map[string]any{
		"resultType":     "task",
		"taskId":         tk.id,
		"status":         taskWorking,
		"createdAt":      isoTime(tk.created),
		"lastUpdatedAt":  isoTime(tk.updated),
		"ttlMs":          taskTTL.Milliseconds(),
		"pollIntervalMs": taskPoll.Milliseconds(),
		"_meta":          map[string]json.RawMessage{metaServerInfo: s.serverInfo},
	})
	return b
}

// taskMethod serves tasks/get, tasks/update and tasks/cancel; every other
// tasks/ method (tasks/result and tasks/list were removed) is unknown.
func (s *Server) taskMethod(ctx context.Context, x *exchange, m *Message, p *params) ([]byte, *Error) {
	switch m.Method {
	case "tasks/get", "tasks/update", "tasks/cancel":
	default:
		return nil, methodNotFound()
	}
	if !x.caps.tasks {
		return nil, missingTasksCapability()
	}
	var id string
	_ = eachParam(m.Params, "taskId", func(v []byte) { id, _ = nameOf(v) })
	if id == "" {
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: taskId must be a non-empty string")
	}
	tk, ok := s.tasks.get(id, callerOf(ctx))
	if !ok {
		return nil, rpcErr(CodeInvalidParams, KindAnswer, "unknown task")
	}
	switch m.Method {
	case "tasks/get":
		return s.detailedTask(tk), nil
	case "tasks/cancel":
		tk.mu.Lock()
		if !tk.terminal() {
			tk.status, tk.updated = taskCanceled, time.Now()
			tk.pending = nil
		}
		tk.mu.Unlock()
		tk.stop()
		return s.finish(x, []byte("{}"), false), nil
	}
	// tasks/update
	if len(p.inputResponses) == 0 || jsonwalk.Kind(p.inputResponses) != "object" {
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: inputResponses must be an object")
	}
	tk.mu.Lock()
	resume := false
	_ = jsonwalk.EachMember(p.inputResponses, func(k, v []byte) error {
		key, ok := jsonwalk.Unquote(k)
		if !ok || jsonwalk.Kind(v) != "object" {
			return nil
		}
		if _, asked := tk.pending[key]; !asked {
			return nil // answers to questions not asked are ignored
		}
		if tk.answers == nil {
			tk.answers = map[string]json.RawMessage{}
		}
		tk.answers[key] = append(json.RawMessage(nil), v...)
		delete(tk.pending, key)
		return nil
	})
	if tk.status == taskInput && len(tk.pending) == 0 {
		tk.status, tk.updated = taskWorking, time.Now()
		resume = true
	}
	tk.mu.Unlock()
	if resume {
		go s.resume(tk)
	}
	return s.finish(x, []byte("{}"), false), nil
}

// resume runs a parked task's handler again with every answer so far.
func (s *Server) resume(tk *task) {
	ctx, cancel := context.WithDeadline(tk.base, tk.expires)
	defer cancel()
	tk.mu.Lock()
	tk.cancel = cancel // tasks/cancel now stops this run
	r := &rounds{s: s, answers: tk.answers, state: tk.state}
	tk.mu.Unlock()
	env := tool.CallEnv{
		Logger:   s.log,
		Supports: tk.caps.supports,
		Input:    r.input,
		State:    r.state,
		Detach:   func() bool { return true },
	}
	res := s.runTool(ctx, tk.tool, tk.args, env, CallInfo{Modern: true, Client: tk.client, Supports: tk.caps.supports, Input: env.Input})
	s.settle(tk, res, r)
}

// stop cancels the task's current run.
func (t *task) stop() {
	t.mu.Lock()
	c := t.cancel
	t.mu.Unlock()
	c()
}

func (s *Server) detailedTask(tk *task) []byte {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	body := map[string]any{
		"resultType":     "complete",
		"taskId":         tk.id,
		"status":         tk.status,
		"createdAt":      isoTime(tk.created),
		"lastUpdatedAt":  isoTime(tk.updated),
		"ttlMs":          taskTTL.Milliseconds(),
		"pollIntervalMs": taskPoll.Milliseconds(),
		"_meta":          map[string]json.RawMessage{metaServerInfo: s.serverInfo},
	}
	switch tk.status {
	case taskDone:
		body["result"] = json.RawMessage(tk.result)
	case taskFailed:
		body["error"] = map[string]any{"code": tk.errCode, "message": tk.errMsg}
	case taskInput:
		body["inputRequests"] = tk.pending
	}
	b, _ := json.Marshal(body)
	return b
}
