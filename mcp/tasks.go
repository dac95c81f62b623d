package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/warden-mcp/warden/internal/jsonwalk"
	"github.com/warden-mcp/warden/statestore"
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

// A task's record lives in the server's state store (Options.State), so
// that any replica answers tasks/get, tasks/update and tasks/cancel; its
// handler runs on the replica that started it, or on the one that
// received the answers that let a parked task go on. A replica that runs
// a task reads its record every taskWatch and stops the run once another
// replica has cancelled it.

// taskWatch is how often a running task's record is read for a
// cancellation made on another replica.
const taskWatch = time.Second

// task is a task run by this replica.
type task struct {
	id      string
	caller  string
	tool    *tool.Tool
	args    json.RawMessage
	created time.Time
	expires time.Time
	base    context.Context // the creating request's values, without its cancellation

	caps   clientCaps // what the creating request declared
	client string     // the creating request's client name

	mu     sync.Mutex
	cancel context.CancelFunc
}

// taskDoc is a task's record in the state store.
type taskDoc struct {
	Tool    string                       `json:"tool"`
	Args    json.RawMessage              `json:"args,omitempty"`
	Created time.Time                    `json:"created"`
	Updated time.Time                    `json:"updated"`
	Status  string                       `json:"status"`
	Result  json.RawMessage              `json:"result,omitempty"`
	ErrCode int                          `json:"errCode,omitempty"`
	ErrMsg  string                       `json:"errMsg,omitempty"`
	Pending map[string]tool.InputRequest `json:"pending,omitempty"`
	Answers map[string]json.RawMessage   `json:"answers,omitempty"`
	State   []byte                       `json:"state,omitempty"`
	Caps    capsDoc                      `json:"caps"`
	Client  string                       `json:"client,omitempty"`
	// Owner is the replica that runs the task's handler now.
	Owner string `json:"owner,omitempty"`
}

func (d *taskDoc) terminal() bool {
	return d.Status == taskDone || d.Status == taskFailed || d.Status == taskCanceled
}

// tasks are the tasks this replica runs, for tasks/cancel to stop them at
// once; other replicas' cancellations reach them through the store.
type taskRuns struct {
	mu   sync.Mutex
	runs map[string]*task
}

func (tr *taskRuns) put(t *task) {
	tr.mu.Lock()
	if tr.runs == nil {
		tr.runs = map[string]*task{}
	}
	tr.runs[t.id] = t
	tr.mu.Unlock()
}

func (tr *taskRuns) drop(t *task) {
	tr.mu.Lock()
	if tr.runs[t.id] == t {
		delete(tr.runs, t.id)
	}
	tr.mu.Unlock()
}

func (tr *taskRuns) stop(id string) {
	tr.mu.Lock()
	t := tr.runs[id]
	tr.mu.Unlock()
	if t != nil {
		t.stop()
	}
}

// stateTimeout bounds one state-store call on the request path.
const stateTimeout = 2 * time.Second

// addTask records a task that has just detached; false when the task caps
// are reached or the store cannot take it (the call then runs to its end
// in the request).
func (s *Server) addTask(tk *task, doc *taskDoc) bool {
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	total, mine, err := s.state.CountState(ctx, "task", tk.caller, time.Now())
	if err != nil || total >= maxTasks || (tk.caller != "" && mine >= maxTasksPerCaller) {
		return false
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return false
	}
	if _, err := s.state.PutState(ctx, statestore.Record{Kind: "task", ID: tk.id, Owner: tk.caller, Data: b, Expires: tk.expires}); err != nil {
		s.log.Warn("task not recorded; the call runs in its request", "cause", err.Error())
		return false
	}
	s.runs.put(tk)
	return true
}

// loadTask reads a task's record for caller.
func (s *Server) loadTask(ctx context.Context, id, caller string) (*taskDoc, statestore.Record, error) {
	rec, err := s.state.GetState(ctx, "task", id, time.Now())
	if err != nil {
		return nil, rec, err
	}
	if rec.Owner != caller {
		return nil, rec, statestore.ErrNotFound
	}
	var d taskDoc
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return nil, rec, err
	}
	return &d, rec, nil
}

// updateTask applies change to a task's record, again on a conflict with
// another replica; change reports false to leave the record as it is.
func (s *Server) updateTask(ctx context.Context, id, caller string, change func(d *taskDoc) bool) (*taskDoc, error) {
	for attempt := 0; ; attempt++ {
		d, rec, err := s.loadTask(ctx, id, caller)
		if err != nil {
			return nil, err
		}
		if !change(d) {
			return d, nil
		}
		if rec.Data, err = json.Marshal(d); err != nil {
			return nil, err
		}
		_, err = s.state.PutState(ctx, rec)
		if err == nil || !errors.Is(err, statestore.ErrConflict) || attempt >= 16 {
			return d, err
		}
	}
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
		created: now, expires: now.Add(taskTTL), cancel: tcancel,
		base: context.WithoutCancel(ctx), caps: x.caps, client: x.client,
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
			doc := &taskDoc{Tool: t.Name, Args: tk.args, Created: now, Updated: now, Status: taskWorking,
				Answers: r.answers, Caps: tk.caps.doc(), Client: tk.client, Owner: s.instance}
			if ok = s.addTask(tk, doc); ok {
				sink.off()
				close(detached)
				go s.watchTask(tctx, tk)
			}
		})
		return ok
	}
	done := make(chan tool.Outcome, 1)
	go func() { done <- s.runTool(tctx, t, args, env) }()
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

// watchTask stops a run of tk once its record says another replica
// cancelled it (or it is gone), until ctx, the run's, ends.
func (s *Server) watchTask(ctx context.Context, tk *task) {
	t := time.NewTicker(taskWatch)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, stateTimeout)
		d, _, err := s.loadTask(rctx, tk.id, tk.caller)
		cancel()
		if errors.Is(err, statestore.ErrNotFound) || (err == nil && d.Status == taskCanceled) {
			tk.stop()
			return
		}
	}
}

// settle records how a task's run ended.
func (s *Server) settle(tk *task, res tool.Outcome, r *rounds) {
	defer s.runs.drop(tk)
	defer tk.stop() // the run has ended; so does its watch
	var result []byte
	if res.Interrupt == nil {
		if b, err := res.Result.MarshalJSON(); err == nil {
			result = s.finish(&exchange{modern: true}, b, false)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	_, err := s.updateTask(ctx, tk.id, tk.caller, func(d *taskDoc) bool {
		if d.Status == taskCanceled {
			return false
		}
		d.Updated = time.Now()
		if res.Interrupt == nil {
			if result == nil {
				d.Status, d.ErrCode, d.ErrMsg = taskFailed, CodeInternalError, "internal error"
			} else {
				d.Status, d.Result = taskDone, result
			}
			return true
		}
		var pe *tool.ProtocolError
		var mc *tool.MissingCapabilityError
		switch {
		case errors.Is(res.Interrupt.Err, tool.ErrInputRequired):
			d.Status = taskInput
			d.Pending = res.Interrupt.Pending
			d.State = res.Interrupt.State
			if r != nil && r.answers != nil {
				d.Answers = r.answers
			}
		case errors.As(res.Interrupt.Err, &pe):
			d.Status, d.ErrCode, d.ErrMsg = taskFailed, pe.Code, pe.Message
		case errors.As(res.Interrupt.Err, &mc):
			d.Status, d.ErrCode, d.ErrMsg = taskFailed, CodeMissingCapability, mc.Error()
		default:
			d.Status, d.ErrCode, d.ErrMsg = taskFailed, CodeInternalError, "internal error"
		}
		return true
	})
	if err != nil {
		s.log.Error("task outcome not recorded", "task", tk.id, "cause", err.Error())
	}
}

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (s *Server) createTaskResult(tk *task) []byte {
	b, _ := json.Marshal(map[string]any{
		"resultType":     "task",
		"taskId":         tk.id,
		"status":         taskWorking,
		"createdAt":      isoTime(tk.created),
		"lastUpdatedAt":  isoTime(tk.created),
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
	caller := callerOf(ctx)
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	unknown := func(err error) ([]byte, *Error) {
		if errors.Is(err, statestore.ErrNotFound) {
			return nil, rpcErr(CodeInvalidParams, KindAnswer, "unknown task")
		}
		logStoreFailure(ctx, s.log, "task state unavailable", err)
		return nil, rpcErr(CodeInternalError, KindUnavailable, "task state unavailable; retry later")
	}
	switch m.Method {
	case "tasks/get":
		d, _, err := s.loadTask(sctx, id, caller)
		if err != nil {
			return unknown(err)
		}
		if d.Status == taskWorking && s.replicaGone(sctx, d.Owner) {
			// Its replica stopped without finishing it: say so rather
			// than leave it working until it expires.
			lost := d.Owner
			if d, err = s.updateTask(sctx, id, caller, func(d *taskDoc) bool {
				if d.Status != taskWorking || d.Owner != lost {
					return false
				}
				e := replicaLost()
				d.Status, d.Updated, d.ErrCode, d.ErrMsg = taskFailed, time.Now(), e.Code, e.Message
				return true
			}); err != nil {
				return unknown(err)
			}
		}
		return s.detailedTask(id, d), nil
	case "tasks/cancel":
		if _, err := s.updateTask(sctx, id, caller, func(d *taskDoc) bool {
			if d.terminal() {
				return false
			}
			d.Status, d.Updated, d.Pending = taskCanceled, time.Now(), nil
			return true
		}); err != nil {
			return unknown(err)
		}
		s.runs.stop(id) // at once here; a run elsewhere stops within taskWatch
		return s.finish(x, []byte("{}"), false), nil
	}
	// tasks/update
	if len(p.inputResponses) == 0 || jsonwalk.Kind(p.inputResponses) != "object" {
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: inputResponses must be an object")
	}
	resume := false
	d, err := s.updateTask(sctx, id, caller, func(d *taskDoc) bool {
		resume = false
		changed := false
		_ = jsonwalk.EachMember(p.inputResponses, func(k, v []byte) error {
			key, ok := jsonwalk.Unquote(k)
			if !ok || jsonwalk.Kind(v) != "object" {
				return nil
			}
			if _, asked := d.Pending[key]; !asked {
				return nil // answers to questions not asked are ignored
			}
			if d.Answers == nil {
				d.Answers = map[string]json.RawMessage{}
			}
			d.Answers[key] = append(json.RawMessage(nil), v...)
			delete(d.Pending, key)
			changed = true
			return nil
		})
		if d.Status == taskInput && len(d.Pending) == 0 {
			d.Status, d.Updated, d.Owner = taskWorking, time.Now(), s.instance
			resume, changed = true, true
		}
		return changed
	})
	if err != nil {
		return unknown(err)
	}
	if resume {
		go s.resume(ctx, id, caller, d)
	}
	return s.finish(x, []byte("{}"), false), nil
}

// resume runs a parked task's handler again, on this replica, with every
// answer so far; ctx is the request that brought the last answer (its
// caller and values, without its cancellation).
func (s *Server) resume(ctx context.Context, id, caller string, d *taskDoc) {
	t, ok := s.reg.Lookup(d.Tool)
	created := d.Created
	expires := created.Add(taskTTL)
	tk := &task{id: id, caller: caller, tool: t, args: d.Args, created: created, expires: expires,
		base: context.WithoutCancel(ctx), caps: d.Caps.caps(), client: d.Client}
	if !ok {
		s.settle(tk, tool.Outcome{Interrupt: &tool.Interrupt{Err: errors.New("the task's tool is no longer served")}}, nil)
		return
	}
	rctx, cancel := context.WithDeadline(tk.base, expires)
	defer cancel()
	tk.cancel = cancel // tasks/cancel now stops this run
	s.runs.put(tk)
	go s.watchTask(rctx, tk)
	r := &rounds{s: s, answers: d.Answers, state: d.State}
	env := tool.CallEnv{
		Modern:        true,
		Client:        tk.client,
		CorrelationID: CorrelationID(ctx),
		Logger:        s.log,
		Supports:      tk.caps.supports,
		Input:         r.input,
		State:         r.state,
		Detach:        func() bool { return true },
	}
	res := s.runTool(rctx, t, tk.args, env)
	s.settle(tk, res, r)
}

// stop cancels the task's current run.
func (t *task) stop() {
	t.mu.Lock()
	c := t.cancel
	t.mu.Unlock()
	if c != nil {
		c()
	}
}

func (s *Server) detailedTask(id string, d *taskDoc) []byte {
	body := map[string]any{
		"resultType":     "complete",
		"taskId":         id,
		"status":         d.Status,
		"createdAt":      isoTime(d.Created),
		"lastUpdatedAt":  isoTime(d.Updated),
		"ttlMs":          taskTTL.Milliseconds(),
		"pollIntervalMs": taskPoll.Milliseconds(),
		"_meta":          map[string]json.RawMessage{metaServerInfo: s.serverInfo},
	}
	switch d.Status {
	case taskDone:
		body["result"] = d.Result
	case taskFailed:
		body["error"] = map[string]any{"code": d.ErrCode, "message": d.ErrMsg}
	case taskInput:
		body["inputRequests"] = d.Pending
	}
	b, _ := json.Marshal(body)
	return b
}
