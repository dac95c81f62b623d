package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/auth"
)

func (e *env) tokenCommand() *cobra.Command {
	var f serveFlags
	var tenant, subject string
	var entitle, scopes []string
	var ttl time.Duration
	var asJSON bool
	var port int
	c := &cobra.Command{
		Use:   "token",
		Short: "Mint a bearer token from the local signing key",
		Long: "Mint a bearer token signed by the local development key in the state\n" +
			"directory, for a Warden that has no external issuer. The audience is the\n" +
			"server's public URL, so the token works only with that server: name it with\n" +
			"--port, --listen or the configuration's listen address, as you started it\n" +
			"(default 127.0.0.1:8787). Entitlements name tools (keysweep_scan_text),\n" +
			"families (keysweep) or everything (*).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(f.config, os.Getenv)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if port < 0 || port > 65535 {
				return &exitError{code: ExitError, err: fmt.Errorf("--port %d: want a port from 1 to 65535", port)}
			}
			switch {
			case f.listen != "" && port != 0:
				return &exitError{code: ExitError, err: errors.New("--listen and --port both name the server; give one")}
			case f.listen != "":
				cfg.Listen = f.listen
			case port != 0:
				cfg.Listen = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			}
			named := cfg.Listen != "" || cfg.PublicURL != ""
			if f.stateDir != "" {
				cfg.StateDir = f.stateDir
			}
			if cfg, err = cfg.withDefaults(); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if !named {
				e.noteOtherServers(cfg)
			}
			if cfg.Auth.Issuer != "" {
				return &exitError{code: ExitError, err: fmt.Errorf("this Warden trusts tokens from %s; mint them there", cfg.Auth.Issuer)}
			}
			li, err := auth.LoadOrCreateLocalKey(cfg.StateDir)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			lifetime := ttl
			if lifetime <= 0 || lifetime > auth.DefaultMaxLifetime {
				return &exitError{code: ExitError, err: fmt.Errorf("--ttl %v: a token lives more than 0s and at most %v; say how long, such as --ttl 8h", ttl, auth.DefaultMaxLifetime)}
			}
			if err := checkEntitlements(entitle); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			issued := time.Now()
			token, err := li.Mint(auth.TokenSpec{Audience: cfg.PublicURL, Subject: subject, Tenant: tenant,
				Entitlements: entitle, Scopes: scopes, Lifetime: lifetime, IssuedAt: issued})
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if asJSON {
				return json.NewEncoder(e.stdout).Encode(map[string]any{
					"token": token, "audience": cfg.PublicURL, "subject": subject, "tenant": tenant,
					"entitlements": entitle, "scopes": scopes, "expires_at": issued.Add(lifetime).UTC().Format(time.RFC3339),
				})
			}
			_, err = fmt.Fprintln(e.stdout, token)
			return err
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.config, "config", "", "configuration file (YAML)")
	fl.StringVar(&f.listen, "listen", "", "the server's listen address, which sets the audience (default 127.0.0.1:8787)")
	fl.IntVar(&port, "port", 0, "the port of a server on 127.0.0.1: --port 9000 is --listen 127.0.0.1:9000")
	fl.StringVar(&f.stateDir, "state-dir", "", "directory holding the local signing key")
	fl.StringVar(&tenant, "tenant", "local", "tenant claim")
	fl.StringVar(&subject, "subject", "dev", "credential identity (sub)")
	fl.StringSliceVar(&entitle, "entitle", []string{"*"}, "tools or families the token may call (repeatable)")
	fl.StringSliceVar(&scopes, "scope", nil, "OAuth scopes (repeatable)")
	fl.DurationVar(&ttl, "ttl", 12*time.Hour, "lifetime (at most 24h)")
	fl.BoolVar(&asJSON, "json", false, "print JSON with the token and its claims")
	return c
}

// noteOtherServers warns, on stderr, when no server was named and the
// state directory shows servers on other ports than the default one's:
// the token is for the default listener and would be refused by them.
func (e *env) noteOtherServers(cfg Config) {
	_, def, _ := net.SplitHostPort(cfg.Listen)
	var others []string
	for _, p := range tokenFilePorts(cfg.StateDir) {
		if s := strconv.Itoa(p); s != def {
			others = append(others, s)
		}
	}
	if len(others) == 0 {
		return
	}
	hint := "--port " + others[0]
	fmt.Fprintf(e.stderr, "warden token: this token is for %s; this state directory also has development tokens of servers on port %s: for one of them, pass %s\n",
		cfg.PublicURL, strings.Join(others, ", "), hint)
}

// checkEntitlements refuses an entitlement that names no tool this build
// serves: a misspelt name would mint a token that can call nothing.
func checkEntitlements(entitle []string) error {
	w, err := wire(wireOptions{logger: discardLogger()})
	if err != nil {
		return err
	}
	tools, _ := w.reg.Tools()
	var names, families []string
	for _, t := range tools {
		names = append(names, t.Name)
		if fam, _, ok := strings.Cut(t.Name, "_"); ok && !slices.Contains(families, fam) {
			families = append(families, fam)
		}
	}
	if len(entitle) == 0 {
		return fmt.Errorf("--entitle: a token without entitlements can call nothing; name a tool (%s), a family (%s) or * for every tool",
			strings.Join(names, ", "), strings.Join(families, ", "))
	}
	for _, e := range entitle {
		p := auth.Principal{Entitlements: []string{e}}
		if slices.ContainsFunc(names, p.Entitled) {
			continue
		}
		return fmt.Errorf("--entitle %q names no tool this build serves; name a tool (%s), a family (%s) or * for every tool",
			e, strings.Join(names, ", "), strings.Join(families, ", "))
	}
	return nil
}
