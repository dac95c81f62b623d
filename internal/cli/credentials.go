package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/credential"
)

// credentialsCommand is warden credentials: the registry of API keys and
// bound JWT subjects in the store every replica shares.
func (e *env) credentialsCommand() *cobra.Command {
	var f serveFlags
	c := &cobra.Command{
		Use:   "credentials",
		Short: "Issue, list and revoke API keys and JWT subject bindings",
		Long: "Manage the credential registry in the store (the embedded database, or\n" +
			"PostgreSQL shared by every replica). An API key is shown once, when it is\n" +
			"created, and stored only as a hash; it is bound to a tenant, entitlements and\n" +
			"an optional expiry. With auth.bind_credentials on, tokens are admitted only\n" +
			"for subjects registered with --subject. Revocation reaches every replica\n" +
			"within the registry cache's TTL (30s).",
		Args: cobra.NoArgs,
	}
	pf := c.PersistentFlags()
	pf.StringVar(&f.config, "config", "", "configuration file (YAML)")
	pf.StringVar(&f.stateDir, "state-dir", "", "directory of the embedded database")
	pf.StringVar(&f.store, "store", "", "store DSN: postgres://... (default: the embedded database)")
	c.AddCommand(e.credentialsCreate(&f), e.credentialsList(&f), e.credentialsRevoke(&f), e.credentialsConsoleLink(&f))
	return c
}

// openRegistry opens the store the flags and configuration name.
func openRegistry(ctx context.Context, f *serveFlags) (*credential.Registry, Config, func(), error) {
	cfg, err := f.storeConfig()
	if err != nil {
		return nil, cfg, nil, err
	}
	if err := ensureStateDir(cfg.StateDir); err != nil {
		return nil, cfg, nil, err
	}
	st, closeStore, err := openStore(ctx, cfg)
	if err != nil {
		return nil, cfg, nil, err
	}
	return credential.New(st, nil), cfg, closeStore, nil
}

// credentialJSON is a credential as the --json forms print it; fields
// only ever grow.
type credentialJSON struct {
	ID           string     `json:"id"`
	Key          string     `json:"key,omitempty"`
	Kind         string     `json:"kind"`
	Tenant       string     `json:"tenant"`
	Issuer       string     `json:"issuer,omitempty"`
	Subject      string     `json:"subject,omitempty"`
	Entitlements []string   `json:"entitlements"`
	Label        string     `json:"label,omitempty"`
	Created      time.Time  `json:"created"`
	Expires      *time.Time `json:"expires,omitempty"`
	Revoked      *time.Time `json:"revoked,omitempty"`
	Status       string     `json:"status"`
}

func toJSON(c credential.Credential, key string, now time.Time) credentialJSON {
	j := credentialJSON{ID: c.ID, Key: key, Kind: c.Kind, Tenant: c.Tenant, Issuer: c.Issuer, Subject: c.Subject,
		Entitlements: c.Entitlements, Label: c.Label, Created: c.Created, Status: c.Status(now)}
	if !c.Expires.IsZero() {
		j.Expires = &c.Expires
	}
	if !c.Revoked.IsZero() {
		j.Revoked = &c.Revoked
	}
	return j
}

func (e *env) credentialsCreate(f *serveFlags) *cobra.Command {
	var spec credential.Spec
	var asJSON bool
	c := &cobra.Command{
		Use:   "create --tenant T [--entitle E]... [--ttl D] [--subject S]",
		Short: "Issue an API key (shown once), or bind a JWT subject with --subject",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, cfg, closeStore, err := openRegistry(cmd.Context(), f)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			defer closeStore()
			if spec.Subject != "" {
				spec.Kind = credential.KindJWT
				if spec.Issuer == "" {
					spec.Issuer = cfg.Auth.Issuer
				}
				if spec.Issuer == "" {
					spec.Issuer = auth.LocalIssuerID
				}
			}
			if err := checkEntitlements(spec.Entitlements); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			cr, key, err := reg.Create(cmd.Context(), spec)
			if errors.Is(err, credential.ErrExists) {
				return &exitError{code: ExitError, err: fmt.Errorf("subject %q is already bound in tenant %q; revoke that binding first", spec.Subject, spec.Tenant)}
			}
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if asJSON {
				return json.NewEncoder(e.stdout).Encode(toJSON(cr, key, time.Now()))
			}
			fmt.Fprintf(e.stdout, "id:  %s\n", cr.ID)
			if key != "" {
				fmt.Fprintf(e.stdout, "key: %s\n", key)
				fmt.Fprintln(e.stderr, "The key is shown this once; Warden keeps only its hash. Clients send it as a bearer token.")
			} else {
				fmt.Fprintf(e.stdout, "bound: %s from %s in tenant %s\n", cr.Subject, cr.Issuer, cr.Tenant)
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&spec.Tenant, "tenant", "", "tenant the credential belongs to (required)")
	fl.StringSliceVar(&spec.Entitlements, "entitle", []string{"*"}, "tools or families it may call (repeatable)")
	fl.DurationVar(&spec.TTL, "ttl", 0, "lifetime, such as 720h (default: until revoked)")
	fl.StringVar(&spec.Label, "label", "", "a note for operators, such as the client it was issued to")
	fl.StringVar(&spec.Subject, "subject", "", "bind this JWT subject (credential claim) instead of issuing an API key")
	fl.StringVar(&spec.Issuer, "issuer", "", "the bound subject's issuer (default: auth.issuer, or the local key's)")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	_ = c.MarkFlagRequired("tenant")
	return c
}

func (e *env) credentialsList(f *serveFlags) *cobra.Command {
	var flt credential.Filter
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List registered credentials (never their keys)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, _, closeStore, err := openRegistry(cmd.Context(), f)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			defer closeStore()
			cs, err := reg.List(cmd.Context(), flt)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			now := time.Now()
			if asJSON {
				out := make([]credentialJSON, 0, len(cs))
				for _, c := range cs {
					out = append(out, toJSON(c, "", now))
				}
				return json.NewEncoder(e.stdout).Encode(map[string]any{"credentials": out})
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tTENANT\tSUBJECT\tENTITLEMENTS\tSTATUS\tEXPIRES\tLABEL")
			for _, c := range cs {
				exp := "-"
				if !c.Expires.IsZero() {
					exp = c.Expires.Local().Format(time.DateTime)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\t%s\t%s\t%s\n", c.ID, c.Kind, c.Tenant, c.Subject, c.Entitlements, c.Status(now), exp, c.Label)
			}
			return tw.Flush()
		},
	}
	c.Flags().StringVar(&flt.Tenant, "tenant", "", "only this tenant")
	c.Flags().IntVar(&flt.Limit, "limit", 1000, "at most this many")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func (e *env) credentialsRevoke(f *serveFlags) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a credential; every replica refuses it within the cache TTL",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, _, closeStore, err := openRegistry(cmd.Context(), f)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			defer closeStore()
			now, err := reg.Revoke(cmd.Context(), args[0])
			if errors.Is(err, credential.ErrNotFound) {
				return &exitError{code: ExitError, err: fmt.Errorf("no credential %q", args[0])}
			}
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if asJSON {
				return json.NewEncoder(e.stdout).Encode(map[string]any{"id": args[0], "revoked": true, "already_revoked": !now,
					"effective_within_seconds": reg.TTL().Seconds()})
			}
			if !now {
				fmt.Fprintf(e.stdout, "%s was already revoked\n", args[0])
				return nil
			}
			fmt.Fprintf(e.stdout, "revoked %s; every replica refuses it within %v\n", args[0], reg.TTL())
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
