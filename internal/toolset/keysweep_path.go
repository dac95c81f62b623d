package toolset

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/secretscan"
	"github.com/warden-mcp/warden/tool"
)

// keysweep_scan_path scans files on the server's machine so that an agent
// can check a working tree without reading its secrets into its context.
// It reads only under the directories it is allowed: the operator's
// workspace (keysweep.workspace), and, on a local server only, the roots
// the client declares (MCP roots, asked of the client on each call). A
// hosted server never reads a client's roots: they name the client's
// machine, not the server's.

// Bounds of one keysweep_scan_path call.
const (
	scanPathMaxFiles    = 10_000
	scanPathDefaultMax  = 2_000
	scanPathMaxBytes    = 64 << 20
	scanPathMaxFileSize = 4 << 20
)

type scanPathArgs struct {
	Path     string `json:"path" minLength:"1" maxLength:"4096" desc:"A file or directory to scan: absolute, or relative to the workspace or the first client root. Only paths under those directories are read; symbolic links are resolved first and never followed during the walk."`
	MaxFiles int    `json:"max_files,omitempty" min:"1" max:"10000" default:"2000" desc:"Stop after this many files (at most 10,000); the result says when it stopped."`
}

// ScanPathResult is keysweep_scan_path's result: keysweep_scan_text's
// shape, per file, plus what was read and skipped.
type ScanPathResult struct {
	Status          string         `json:"status" privacy:"plain" desc:"completed, or truncated when max_files or 64 MiB ran out."`
	RiskLevel       string         `json:"risk_level" privacy:"plain" desc:"The highest severity found: none, low, medium, high or critical."`
	ConfidenceScore float64        `json:"confidence_score"`
	Summary         ScanSummary    `json:"summary"`
	Files           []PathFindings `json:"files" desc:"Files with findings, in walk order."`
	FilesScanned    int            `json:"files_scanned"`
	BytesScanned    int64          `json:"bytes_scanned"`
	Skipped         map[string]int `json:"skipped" desc:"Files not scanned, by reason: ignored (.gitignore), binary, too_large (over 4 MiB), symlink, special, unreadable."`
}

// PathFindings are the findings of one file.
type PathFindings struct {
	Path       string            `json:"path" privacy:"path" desc:"Relative to the allowed directory it lies in."`
	Detections []SecretDetection `json:"detections"`
}

var errStopWalk = errors.New("keysweep_scan_path: enough")

func keysweepPathTool(sc *secretscan.Scanner, deps Deps) (*tool.Tool, error) {
	def := tool.Def{
		Name:  "keysweep_scan_path",
		Title: "Scan files for exposed secrets",
		Description: "Scan a file or a directory tree for exposed secrets, honouring .gitignore, skipping binary files and never " +
			"following symbolic links. Returns redacted findings per file (type, severity, confidence, keyed fingerprint, length, line " +
			"and column), never a secret value, so that files can be checked without reading them. Reads only under the server's " +
			"workspace or, on a local server, the client's declared roots.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     tool.Catalog{Category: "secrets", Trust: tool.TrustAuto, ConsumesQuota: true},
	}
	if len(deps.Workspace) == 0 {
		// Only roots remain: a client that declares none is not shown it.
		def.ClientNeeds = []string{"roots"}
	}
	workspace, err := newRoots(deps.Workspace)
	if err != nil {
		return nil, err
	}
	return tool.New(def, func(ctx context.Context, call *tool.Call, in scanPathArgs) (ScanPathResult, error) {
		dirs := workspace
		if deps.ClientRoots && call.Supports("roots") {
			got, err := clientRoots(ctx, call)
			if err != nil {
				return ScanPathResult{}, err
			}
			dirs = append(append([]root(nil), dirs...), got...)
		}
		if len(dirs) == 0 {
			return ScanPathResult{}, errPathNotAllowed("this server has no workspace and the client declared no roots, so no path may be read")
		}
		abs, base, err := resolveScanPath(dirs, in.Path)
		if err != nil {
			return ScanPathResult{}, err
		}
		ctx, err = call.Begin(ctx)
		if err != nil {
			return ScanPathResult{}, err
		}
		return scanPath(ctx, call, sc, abs, base, in.MaxFiles)
	})
}

// clientRoots asks the client for its roots and keeps the file:// ones
// that name existing directories.
func clientRoots(ctx context.Context, call *tool.Call) ([]root, error) {
	got, err := call.Input(ctx, map[string]tool.InputRequest{"roots": tool.ListRoots()})
	if err != nil {
		return nil, err
	}
	var lr struct {
		Roots []struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	if json.Unmarshal(got["roots"], &lr) != nil {
		return nil, errcode.New("invalid_roots", "the client's roots/list answer is not a list of roots")
	}
	var dirs []string
	for _, r := range lr.Roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || !filepath.IsAbs(u.Path) {
			continue // only local directories
		}
		dirs = append(dirs, u.Path)
		if len(dirs) == 64 {
			break
		}
	}
	var out []root
	for _, d := range dirs {
		if rs, err := newRoots([]string{d}); err == nil {
			out = append(out, rs...)
		}
	}
	return out, nil
}

// resolveScanPath returns the real path p names under one of dirs, and
// the directory it lies in. The check is lexical first (a path outside
// learns nothing of what exists there), then on the path with its links
// resolved.
func resolveScanPath(dirs []root, p string) (abs, base string, err error) {
	if strings.ContainsRune(p, 0) {
		return "", "", errPathNotAllowed("the path is not a valid file path")
	}
	var cands []string
	if filepath.IsAbs(p) {
		cands = []string{filepath.Clean(p)}
	} else {
		for _, r := range dirs {
			cands = append(cands, filepath.Join(r.given, p))
		}
	}
	for _, c := range cands {
		inside := false
		for _, r := range dirs {
			if _, ok := within(r.given, c); ok {
				inside = true
			} else if _, ok := within(r.resolved, c); ok {
				inside = true
			}
		}
		if !inside {
			continue
		}
		real, err := filepath.EvalSymlinks(c)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", "", errPathNotAllowed("the path cannot be resolved")
		}
		for _, r := range dirs {
			if _, ok := within(r.resolved, real); ok {
				return real, r.resolved, nil
			}
		}
		return "", "", errPathNotAllowed("the path leads outside the allowed directories")
	}
	if filepath.IsAbs(p) {
		return "", "", errPathNotAllowed("the path is outside the directories this tool may read (the workspace and the client's roots)")
	}
	return "", "", errcode.New(CodeFileNotFound, "no such file or directory under the allowed directories")
}

func scanPath(ctx context.Context, call *tool.Call, sc *secretscan.Scanner, abs, base string, maxFiles int) (ScanPathResult, error) {
	if maxFiles <= 0 {
		maxFiles = scanPathDefaultMax
	}
	out := ScanPathResult{Status: "completed", Files: []PathFindings{}, Skipped: map[string]int{}}
	var all secretscan.Result
	chars := 0
	add := func(rel string, res secretscan.Result) {
		out.FilesScanned++
		chars += res.TextLength
		all.Detections = append(all.Detections, res.Detections...)
		if len(res.Detections) > 0 {
			out.Files = append(out.Files, PathFindings{Path: rel, Detections: scanTextResult(res).Detections})
		}
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return out, errcode.New(CodeFileNotFound, "no such file or directory under the allowed directories")
	}
	relOf := func(p string) string {
		r, _ := filepath.Rel(base, p)
		return filepath.ToSlash(r)
	}
	switch {
	case fi.Mode().IsRegular():
		res, err := sc.ScanFile(ctx, abs, scanPathMaxFileSize)
		if errors.Is(err, secretscan.ErrTooLarge) {
			out.Skipped[secretscan.SkipTooLarge]++
			break
		}
		if err != nil {
			return out, err
		}
		out.BytesScanned = fi.Size()
		add(relOf(abs), res)
	case fi.IsDir():
		prefix := relOf(abs)
		st, err := sc.ScanDir(ctx, abs, &secretscan.WalkOptions{MaxFileSize: scanPathMaxFileSize, Workers: 2}, func(fr secretscan.FileResult) error {
			add(filepath.ToSlash(filepath.Join(prefix, fr.Path)), fr.Result)
			call.Progress(float64(out.FilesScanned), float64(maxFiles), "scanning")
			if out.FilesScanned >= maxFiles || chars >= scanPathMaxBytes {
				return errStopWalk
			}
			return nil
		})
		out.BytesScanned = st.Bytes
		out.Skipped = st.Skipped
		switch {
		case errors.Is(err, errStopWalk):
			out.Status = "truncated"
			call.Warn("truncated", "max_files or 64 MiB of text was reached; scan a subdirectory, or raise max_files (up to 10,000)")
		case err != nil:
			if errors.Is(err, secretscan.ErrCanceled) {
				return out, ctx.Err()
			}
			return out, err
		}
	default:
		return out, errPathNotAllowed("only regular files and directories are scanned")
	}
	sum := all.Summarize()
	out.Summary = ScanSummary{Total: sum.Total, BySeverity: sum.BySeverity, ByType: sum.ByType}
	out.RiskLevel, out.ConfidenceScore = all.RiskLevel().String(), all.ConfidenceScore()
	return out, nil
}
