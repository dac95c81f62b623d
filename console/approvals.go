package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/warden-mcp/warden/approval"
)

// maxListed bounds the requests a list shows.
const maxListed = 200

// listRequests returns the requests s may decide, newest first.
func (h *Handler) listRequests(r *http.Request, s Session) ([]approval.Request, error) {
	all, err := h.o.Requests.ApprovalRequests(r.Context(), s.Tenant, maxListed)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, x := range all {
		if s.MayDecide(x) {
			out = append(out, x)
		}
	}
	return out, nil
}

func (h *Handler) home(w http.ResponseWriter, r *http.Request, _ Session) {
	http.Redirect(w, r, Path+"/approvals", http.StatusSeeOther)
}

// approvals lists the pending requests (kept current by the page's
// script) and the history with who decided.
func (h *Handler) approvals(w http.ResponseWriter, r *http.Request, s Session) {
	reqs, err := h.listRequests(r, s)
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, "approvals_unavailable", "Approval requests cannot be read now; try again.")
		return
	}
	now := h.o.Now()
	p := h.base(s, "Approvals")
	for _, x := range reqs {
		v := h.view(x, now)
		if x.Open(now) {
			p.Pending = append(p.Pending, v)
		} else {
			p.History = append(p.History, v)
		}
	}
	h.render(w, http.StatusOK, "approvals", p)
}

// requestView is a request as a page shows it.
type requestView struct {
	ID, Tool, Trust, State, DecidedBy string
	Lines                             []string
	Created, Expires, DecidedAt       string
	Open, Spent, SessionOffered       bool
}

func (h *Handler) view(x approval.Request, now time.Time) requestView {
	v := requestView{ID: x.ID, Tool: x.Tool, Trust: x.Trust, State: x.State, DecidedBy: x.DecidedBy,
		Lines: strings.Split(x.Summary, "\n"), Created: stamp(x.Created), Expires: stamp(x.Expires),
		Open: x.Open(now), Spent: x.Spent, SessionOffered: x.Grant != ""}
	if !x.DecidedAt.IsZero() {
		v.DecidedAt = stamp(x.DecidedAt)
	}
	if x.State == approval.StatePending && !v.Open {
		v.State = "expired"
	}
	return v
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") }

// load returns the request named in the path if s may decide it. Any
// other id (malformed, unknown, another caller's or tenant's) is the same
// 404, so the page tells nobody which ids exist.
func (h *Handler) load(w http.ResponseWriter, r *http.Request, s Session) (approval.Request, bool) {
	id := r.PathValue("id")
	if !approval.ValidID(id) {
		h.fail(w, r, http.StatusNotFound, "approval_not_found", "There is no such approval request for you.")
		return approval.Request{}, false
	}
	x, err := h.o.Requests.ApprovalRequest(r.Context(), id)
	switch {
	case errors.Is(err, approval.ErrNotFound) || err == nil && !s.MayDecide(x):
		h.fail(w, r, http.StatusNotFound, "approval_not_found", "There is no such approval request for you.")
		return x, false
	case err != nil:
		h.o.Logger.Warn("approval request unreadable", "cause", err.Error())
		h.fail(w, r, http.StatusServiceUnavailable, "approvals_unavailable", "Approval requests cannot be read now; try again.")
		return x, false
	}
	return x, true
}

// approvalPage shows one request: the tool, its trust tier, what the call
// will do, and the decision form while it is open.
func (h *Handler) approvalPage(w http.ResponseWriter, r *http.Request, s Session) {
	x, ok := h.load(w, r, s)
	if !ok {
		return
	}
	p := h.base(s, "Approve "+x.Tool+"?")
	v := h.view(x, h.o.Now())
	p.Request = &v
	p.CSRF = h.csrf(s, "decide "+x.ID)
	if h.o.ApprovalTTL > 0 {
		p.SessionTTL = h.o.ApprovalTTL.String()
	}
	h.render(w, http.StatusOK, "approval", p)
}

// decide records the person's decision. A decided or expired request
// answers 409: a link used again decides nothing.
func (h *Handler) decide(w http.ResponseWriter, r *http.Request, s Session) {
	x, ok := h.load(w, r, s)
	if !ok {
		return
	}
	if !h.checkCSRF(r, s, "decide "+x.ID) {
		h.fail(w, r, http.StatusForbidden, "csrf_invalid", "This form has expired; reload the page.")
		return
	}
	var state string
	switch r.PostFormValue("decision") {
	case "approve":
		state = approval.StateApproved
	case "approve_session":
		if x.Grant == "" {
			h.fail(w, r, http.StatusBadRequest, "decision_invalid", "This tool is approved one call at a time.")
			return
		}
		state = approval.StateApprovedSession
	case "deny":
		state = approval.StateDenied
	default:
		h.fail(w, r, http.StatusBadRequest, "decision_invalid", "Choose approve, approve for this session, or deny.")
		return
	}
	if !x.Open(h.o.Now()) {
		h.fail(w, r, http.StatusConflict, "approval_closed", "This request was decided already or has expired.")
		return
	}
	if !h.record(w, r, s, "console_approval_"+state) {
		return
	}
	err := h.o.Requests.DecideApprovalRequest(r.Context(), x.ID, state, cutName(s.Name), h.o.Now())
	switch {
	case errors.Is(err, approval.ErrNotPending):
		h.fail(w, r, http.StatusConflict, "approval_closed", "This request was decided already or has expired.")
		return
	case err != nil:
		h.o.Logger.Warn("approval decision not recorded", "cause", err.Error())
		h.fail(w, r, http.StatusServiceUnavailable, "approvals_unavailable", "The decision could not be recorded; try again.")
		return
	}
	h.o.Logger.Info("approval decided", "tool", x.Tool, "decision", state, "tenant", x.Tenant)
	http.Redirect(w, r, Path+"/approvals/"+url.PathEscape(x.ID), http.StatusSeeOther)
}

func cutName(s string) string {
	if r := []rune(s); len(r) > 100 {
		return string(r[:100])
	}
	return s
}

// maxStream is how long one live stream lasts; the browser reconnects.
const maxStream = 5 * time.Minute

// pendingItem is one pending request in the live list.
type pendingItem struct {
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Trust   string `json:"trust"`
	Created string `json:"created"`
	Expires string `json:"expires"`
}

// events streams the session's pending requests as server-sent events,
// one "pending" event whenever the list changes.
func (h *Handler) events(w http.ResponseWriter, r *http.Request, s Session) {
	select {
	case h.streams <- struct{}{}:
		defer func() { <-h.streams }()
	default:
		h.fail(w, r, http.StatusServiceUnavailable, "too_many_streams", "Too many live lists are open; reload later.")
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		h.fail(w, r, http.StatusInternalServerError, "streaming_unsupported", "Live updates are not available here.")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	ctx := r.Context()
	end := time.NewTimer(maxStream)
	defer end.Stop()
	tick := time.NewTicker(h.o.Poll)
	defer tick.Stop()
	var last []byte
	for {
		reqs, err := h.listRequests(r, s)
		if err == nil {
			now := h.o.Now()
			items := []pendingItem{}
			for _, x := range reqs {
				if x.Open(now) {
					items = append(items, pendingItem{ID: x.ID, Tool: x.Tool, Trust: x.Trust, Created: stamp(x.Created), Expires: stamp(x.Expires)})
				}
			}
			b, _ := json.Marshal(items)
			if !bytes.Equal(b, last) {
				last = b
				if _, err := w.Write(append(append([]byte("event: pending\ndata: "), b...), '\n', '\n')); err != nil {
					return
				}
				fl.Flush()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-end.C:
			return
		case <-tick.C:
		}
	}
}
