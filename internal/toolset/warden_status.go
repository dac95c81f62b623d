package toolset

import (
	"context"
	"github.com/warden-mcp/warden/plugin"
	"runtime"
	"time"

	"github.com/warden-mcp/warden/tool"
)

// StatusResult is warden_status's result.
type StatusResult struct {
	Server StatusServer `json:"server"`
	Caller StatusCaller `json:"caller"`
	// Tools lists every tool of the build with whether this caller may
	// call it and, if not, why.
	Tools     []StatusTool  `json:"tools"`
	Available int           `json:"available" desc:"Tools this caller may call."`
	Gated     int           `json:"gated" desc:"Tools this caller may not call, each with its reason."`
	Limits    *StatusLimits `json:"limits,omitempty" desc:"The caller's remaining rate, quota and slots; absent where the server keeps no limits."`
}

// StatusServer is the build.
type StatusServer struct {
	Name      string `json:"name" privacy:"plain"`
	Version   string `json:"version" privacy:"plain"`
	Edition   string `json:"edition" privacy:"plain" desc:"full, or lean (no tool that sends traffic)."`
	GoVersion string `json:"go_version" privacy:"plain"`
	Approvals string `json:"approvals" privacy:"plain" desc:"elicit (Warden asks the person through the client) or client (the client or a gateway asks)."`
	Privacy   string `json:"privacy" privacy:"plain" desc:"The privacy mode applied to this caller's results: strict, balanced or off."`
}

// StatusCaller is who called.
type StatusCaller struct {
	Credential string `json:"credential" privacy:"plain" desc:"The credential's id (local for the local user): a name, not a secret."`
	Tenant     string `json:"tenant" privacy:"plain"`
}

// StatusPlugin is the plugin a tool comes from.
type StatusPlugin struct {
	Name    string `json:"name" privacy:"plain"`
	Version string `json:"version" privacy:"plain"`
	Runtime string `json:"runtime" privacy:"plain" desc:"wasm (sandboxed in process) or python (a trusted child process)."`
	Trusted bool   `json:"trusted" desc:"True for a child-process plugin, which can reach what the server's user can."`
}

// StatusTool is one tool's availability.
type StatusTool struct {
	Name      string        `json:"name" privacy:"plain"`
	Category  string        `json:"category" privacy:"plain"`
	Trust     string        `json:"trust" privacy:"plain" desc:"auto, confirm (a person approves once) or confirm_each (every call)."`
	Unsafe    bool          `json:"unsafe"`
	Available bool          `json:"available"`
	Code      string        `json:"code,omitempty" privacy:"plain" desc:"Why not: tool_disabled, unsafe_tool_blocked or forbidden."`
	Reason    string        `json:"reason,omitempty" privacy:"plain" desc:"What setting would change the answer."`
	Plugin    *StatusPlugin `json:"plugin,omitempty" desc:"The plugin the tool comes from; absent for built-in tools."`
}

// StatusLimits is the caller's standing.
type StatusLimits struct {
	Requests *StatusRate   `json:"requests,omitempty" desc:"The per-credential request limit; absent where requests are not limited."`
	Scans    StatusRate    `json:"scans" desc:"The short window of charged scans."`
	Monthly  StatusMonthly `json:"monthly"`
	Slots    StatusSlots   `json:"slots"`
}

// StatusRate is one sliding window.
type StatusRate struct {
	Limit         int     `json:"limit"`
	WindowSeconds float64 `json:"window_seconds"`
	Remaining     int     `json:"remaining"`
	ResetSeconds  float64 `json:"reset_seconds" desc:"When the window next frees an admission; 0 when it holds none."`
}

// StatusMonthly is the month's allowance of charged scans.
type StatusMonthly struct {
	Limit     int64  `json:"limit" desc:"-1: no cap (calls are still counted)."`
	Used      int64  `json:"used"`
	Remaining int64  `json:"remaining" desc:"-1: no cap."`
	Resets    string `json:"resets" privacy:"plain" desc:"RFC 3339: when the next month starts (UTC)."`
}

// StatusSlots are concurrency slots.
type StatusSlots struct {
	Held           int `json:"held"`
	Max            int `json:"max"`
	ServerHeld     int `json:"server_held"`
	ServerCapacity int `json:"server_capacity"`
}

func wardenStatusTool(n *Native, reg *tool.Registry) (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "warden_status",
		Title: "What this Warden serves, and what you may use",
		Description: "Report the server's build, edition and version; every tool with whether this caller may call it " +
			"and, if not, why (disabled, unsafe tools off, not entitled) and which need a person's approval; and the " +
			"caller's remaining request rate, scan quota and concurrency slots. Reading it costs no rate token, quota " +
			"or slot.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     wardenCatalog,
	}, func(ctx context.Context, call *tool.Call, _ struct{}) (StatusResult, error) {
		out := StatusResult{
			Server: StatusServer{Name: "warden", Version: n.Version, Edition: n.Edition, GoVersion: runtime.Version(),
				Approvals: n.Approvals, Privacy: string(n.privacy(ctx).Mode())},
			Tools: []StatusTool{},
		}
		c, cerr := n.caller(call)
		if cerr == nil {
			out.Caller = StatusCaller{Credential: c.Credential, Tenant: c.Tenant}
		}
		var tools []*tool.Tool
		if reg != nil {
			tools, _ = reg.Tools()
		}
		for _, t := range tools {
			st := StatusTool{Name: t.Name, Category: t.Catalog.Category, Trust: string(t.Catalog.Trust), Unsafe: t.Catalog.Unsafe, Available: true}
			if info, ok := plugin.InfoOf(t); ok {
				st.Plugin = &StatusPlugin{Name: info.Name, Version: info.Version, Runtime: info.Runtime, Trusted: info.Trusted}
			}
			if n.Gate != nil {
				if e := n.Gate(ctx, t); e != nil {
					st.Available, st.Code, st.Reason = false, e.Code, e.Message
				}
			}
			if st.Available {
				out.Available++
			} else {
				out.Gated++
			}
			out.Tools = append(out.Tools, st)
		}
		if n.Usage != nil && cerr == nil {
			// Admission keeps usage under the issuer, tenant and
			// credential together, not the bare credential.
			u, err := n.Usage(ctx, c.limitsKey())
			if err != nil {
				call.Warn("limits_unavailable", "the caller's limits cannot be read right now")
			} else {
				l := &StatusLimits{
					Scans:   statusRate(u.ScanRate.Limit, u.ScanRate.Window, u.ScanRate.Remaining, u.ScanRate.Reset),
					Monthly: StatusMonthly{Limit: u.MonthlyLimit, Used: u.MonthlyUsed, Remaining: u.MonthlyRemaining(), Resets: u.MonthlyResets.UTC().Format(time.RFC3339)},
					Slots:   StatusSlots{Held: u.Slots, Max: u.MaxSlots, ServerHeld: u.ServerSlots, ServerCapacity: u.ServerCapacity},
				}
				if n.TransportLimited {
					r := statusRate(u.Transport.Limit, u.Transport.Window, u.Transport.Remaining, u.Transport.Reset)
					l.Requests = &r
				}
				out.Limits = l
			}
		}
		return out, nil
	})
}

func statusRate(limit int, window time.Duration, remaining int, reset time.Duration) StatusRate {
	return StatusRate{Limit: limit, WindowSeconds: window.Seconds(), Remaining: remaining, ResetSeconds: reset.Seconds()}
}
