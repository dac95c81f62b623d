package console

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/limits"
)

// page is what every template reads. html/template escapes each value in
// its context: a finding's title or a file name is text, never markup.
type page struct {
	Title, Code, Message, Next string
	TokenSignIn                bool
	Session                    *Session
	SignOutCSRF                string
	Nav                        []navItem
	Pending, History           []requestView
	Request                    *requestView
	CSRF, SessionTTL           string
	Findings                   []findingRow
	CanMark                    bool
	Filter                     findingFilter
	ExportQuery                string
	Activity                   []activityRow
	Credential                 string
	Settings                   []Setting
	Views                      []viewRow
}

// viewRow is an open binary view as the Binary views page shows it.
type viewRow struct {
	Name, SHA256, Opened, Used, Expires string
	Size                                int64
}

type navItem struct {
	Name, Href string
	Current    bool
}

// findingRow is a finding with its triage state and the CSRF token of
// its "mark as" form.
type findingRow struct {
	finding.Finding
	Status   finding.Status
	MarkCSRF string
}

type findingFilter struct {
	Severity, Target, Tool, Since string
}

type activityRow struct {
	Time, Credential, Tool, Outcome, Duration, CorrelationID string
}

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"list":  func(s ...string) []string { return s },
	"stamp": stamp,
}).ParseFS(assets, "assets/*.html"))

// render writes a template; a template that fails writes a plain 500,
// never half a page.
func (h *Handler) render(w http.ResponseWriter, status int, name string, p page) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, p); err != nil {
		h.o.Logger.Error("console page not rendered", "page", name, "cause", err.Error())
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// base is a signed-in page's frame: the navigation of the pages this
// console serves.
func (h *Handler) base(s Session, title string) page {
	p := page{Title: title, Session: &s, SignOutCSRF: h.csrf(s, "signout")}
	add := func(name, href string) {
		p.Nav = append(p.Nav, navItem{Name: name, Href: href, Current: strings.HasPrefix(title, name)})
	}
	add("Approvals", Path+"/approvals")
	if h.o.Findings != nil {
		add("Findings", Path+"/findings")
	}
	if h.o.Audit != nil {
		add("Activity", Path+"/activity")
	}
	if h.o.Views != nil {
		add("Binary views", Path+"/views")
	}
	add("Settings", Path+"/settings")
	return p
}

// findingFilterOf reads the filter form; Tenant is always the session's.
func findingFilterOf(r *http.Request, s Session) (finding.Filter, findingFilter, bool) {
	q := r.URL.Query()
	ff := findingFilter{Severity: q.Get("severity"), Target: q.Get("target"), Tool: q.Get("tool"), Since: q.Get("since")}
	f := finding.Filter{Tenant: s.Tenant, Target: cut(ff.Target, 200), SourceTool: cut(ff.Tool, 100), Limit: finding.MaxListLimit}
	if ff.Severity != "" {
		if finding.Rank(ff.Severity) < 0 {
			return f, ff, false
		}
		f.MinSeverity = ff.Severity
	}
	if ff.Since != "" {
		t, err := time.Parse("2006-01-02", ff.Since)
		if err != nil {
			return f, ff, false
		}
		f.Since = t
	}
	return f, ff, true
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// findings lists the tenant's findings under the filter.
func (h *Handler) findings(w http.ResponseWriter, r *http.Request, s Session) {
	if h.o.Findings == nil {
		http.NotFound(w, r)
		return
	}
	f, ff, ok := findingFilterOf(r, s)
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "filter_invalid", "Severity is one of info, low, medium, high, critical; since is a date (2026-12-01).")
		return
	}
	fs, err := h.o.Findings.ListFindings(r.Context(), f)
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, "findings_unavailable", "Findings cannot be read now; try again.")
		return
	}
	var states map[string]finding.Status
	if h.o.Statuses != nil && len(fs) > 0 {
		ids := make([]string, len(fs))
		for i, f := range fs {
			ids[i] = f.ID
		}
		if states, err = h.o.Statuses.FindingStatuses(r.Context(), s.Tenant, ids); err != nil {
			h.fail(w, r, http.StatusServiceUnavailable, "findings_unavailable", "Findings cannot be read now; try again.")
			return
		}
	}
	p := h.base(s, "Findings")
	p.Filter, p.CanMark = ff, h.o.Statuses != nil
	for _, f := range fs {
		st, ok := states[f.ID]
		if !ok {
			st.State = finding.StatusOpen
		}
		p.Findings = append(p.Findings, findingRow{Finding: f, Status: st, MarkCSRF: h.csrf(s, "mark "+f.ID)})
	}
	p.ExportQuery = r.URL.Query().Encode()
	h.render(w, http.StatusOK, "findings", p)
}

// markFinding sets a finding's triage state, recorded in the audit trail
// first. Only a finding of the session's tenant can be marked.
func (h *Handler) markFinding(w http.ResponseWriter, r *http.Request, s Session) {
	id := r.PathValue("id")
	if h.o.Statuses == nil || len(id) > finding.MaxID {
		h.fail(w, r, http.StatusNotFound, "finding_not_found", "There is no such finding in your tenant.")
		return
	}
	if !h.checkCSRF(r, s, "mark "+id) {
		h.fail(w, r, http.StatusForbidden, "csrf_invalid", "This form has expired; reload the page.")
		return
	}
	state := r.PostFormValue("status")
	if !finding.ValidStatus(state) {
		h.fail(w, r, http.StatusBadRequest, "status_invalid", "Mark a finding open, accepted or fixed.")
		return
	}
	if !h.record(w, r, s, "console_finding_"+state) {
		return
	}
	err := h.o.Statuses.SetFindingStatus(r.Context(), s.Tenant, id, finding.Status{State: state, By: cutName(s.Name), At: h.o.Now()})
	switch {
	case errors.Is(err, finding.ErrNotFound):
		h.fail(w, r, http.StatusNotFound, "finding_not_found", "There is no such finding in your tenant.")
		return
	case err != nil:
		h.fail(w, r, http.StatusServiceUnavailable, "findings_unavailable", "The change could not be saved; try again.")
		return
	}
	http.Redirect(w, r, Path+"/findings", http.StatusSeeOther)
}

// record writes the audit record of a person's act; false (and the
// refusal written) when it cannot be recorded.
func (h *Handler) record(w http.ResponseWriter, r *http.Request, s Session, act string) bool {
	if h.o.Record == nil {
		return true
	}
	cred := s.Credential
	if cred == "" {
		cred = "console:" + cut(s.Name, 64)
	}
	var cid [8]byte
	rand.Read(cid[:])
	err := h.o.Record(r.Context(), limits.AuditRecord{Time: h.o.Now(), CorrelationID: hex.EncodeToString(cid[:]),
		Credential: cred, Tenant: s.Tenant, Tool: act, Outcome: "ok"})
	if err != nil {
		h.o.Logger.Warn("console act not audited; refused", "act", act, "cause", err.Error())
		h.fail(w, r, http.StatusServiceUnavailable, "audit_unavailable", "The change cannot be recorded now, so it was not made; try again.")
		return false
	}
	return true
}

// exportFindings writes the filtered findings as SARIF, JSON or HTML, as
// a download.
func (h *Handler) exportFindings(w http.ResponseWriter, r *http.Request, s Session) {
	if h.o.Findings == nil {
		http.NotFound(w, r)
		return
	}
	f, _, ok := findingFilterOf(r, s)
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "filter_invalid", "The filter is not valid.")
		return
	}
	fs, err := h.o.Findings.ListFindings(r.Context(), f)
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, "findings_unavailable", "Findings cannot be read now; try again.")
		return
	}
	var b bytes.Buffer
	var ctype, ext string
	switch r.URL.Query().Get("format") {
	case "sarif":
		err, ctype, ext = finding.WriteSARIF(&b, fs, h.o.Version), "application/sarif+json", "sarif"
	case "json":
		err, ctype, ext = finding.WriteJSON(&b, fs), "application/json", "json"
	case "html":
		err, ctype, ext = finding.WriteHTML(&b, fs, h.o.Now()), "text/html; charset=utf-8", "html"
	default:
		h.fail(w, r, http.StatusBadRequest, "format_invalid", "Export as sarif, json or html.")
		return
	}
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, "export_failed", "The export could not be written.")
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", `attachment; filename="warden-findings.`+ext+`"`)
	_, _ = w.Write(b.Bytes())
}

// activity shows the audit trail: the session's own credential's, or, for
// the tenant's owner, any credential of the tenant. Never another tenant's.
func (h *Handler) activity(w http.ResponseWriter, r *http.Request, s Session) {
	if h.o.Audit == nil {
		http.NotFound(w, r)
		return
	}
	f := limits.AuditFilter{Tenant: s.Tenant, Credential: s.Credential, Tool: cut(r.URL.Query().Get("tool"), 100), Limit: 200}
	cred := ""
	if s.Owner {
		cred = cut(r.URL.Query().Get("credential"), limits.MaxIDLength)
		f.Credential = cred
	}
	recs, err := h.o.Audit(r.Context(), f)
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, "audit_unavailable", "The audit trail cannot be read now; try again.")
		return
	}
	p := h.base(s, "Activity")
	p.Credential = cred
	for _, x := range recs {
		if x.Tenant != s.Tenant {
			continue // the filter holds it; a store that did not is not shown
		}
		p.Activity = append(p.Activity, activityRow{Time: stamp(x.Time), Credential: x.Credential, Tool: x.Tool,
			Outcome: x.Outcome, Duration: x.Duration.Round(time.Millisecond).String(), CorrelationID: x.CorrelationID})
	}
	h.render(w, http.StatusOK, "activity", p)
}

// views lists the open binary views of the session's credential. An
// owner's session names no credential: its page says so.
func (h *Handler) views(w http.ResponseWriter, r *http.Request, s Session) {
	if h.o.Views == nil {
		http.NotFound(w, r)
		return
	}
	p := h.base(s, "Binary views")
	if s.Credential != "" {
		vs, err := h.o.Views(r.Context(), s.principal())
		if err != nil {
			h.fail(w, r, http.StatusServiceUnavailable, "views_unavailable", "Binary views cannot be read now; try again.")
			return
		}
		for _, v := range vs {
			if v.Tenant != s.Tenant {
				continue
			}
			p.Views = append(p.Views, viewRow{Name: v.Name, SHA256: v.SHA256, Size: v.Size,
				Opened: stamp(v.Opened), Used: stamp(v.Used), Expires: stamp(v.Expires)})
		}
	}
	h.render(w, http.StatusOK, "views", p)
}

// settings shows the server's settings, read-only.
func (h *Handler) settings(w http.ResponseWriter, r *http.Request, s Session) {
	p := h.base(s, "Settings")
	p.Settings = []Setting{{"Signed in as", s.Name}, {"Tenant", s.Tenant}}
	if s.Owner {
		p.Settings = append(p.Settings, Setting{"Scope of the sign-in", "every credential of the tenant"})
	} else {
		p.Settings = append(p.Settings, Setting{"Scope of the sign-in", "this credential only"})
	}
	p.Settings = append(p.Settings, Setting{"Session lasts", h.o.SessionLifetime.String()})
	if h.o.Settings != nil {
		p.Settings = append(p.Settings, h.o.Settings(r.Context(), s)...)
	}
	h.render(w, http.StatusOK, "settings", p)
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
