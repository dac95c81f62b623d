package toolset

import (
	"context"
	"strings"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/tool"
)

// The summary tools: bininspect_triage and bininspect_build_info.

type noArgs struct{}

// TriageResult is the first look at a view.
type TriageResult struct {
	View      string        `json:"view" privacy:"plain" desc:"The view's handle."`
	Name      string        `json:"name" privacy:"path"`
	Format    string        `json:"format" privacy:"plain" desc:"elf, pe, macho or raw."`
	Arch      string        `json:"arch" privacy:"plain"`
	Machine   string        `json:"machine,omitempty" privacy:"plain" desc:"The header's own machine name."`
	Bits      int           `json:"bits"`
	Endian    string        `json:"endian" privacy:"plain"`
	Kind      string        `json:"kind" privacy:"plain" desc:"executable, pie, shared_library, object, core, driver or raw."`
	Size      int64         `json:"size"`
	Entry     string        `json:"entry" privacy:"plain"`
	ImageBase string        `json:"image_base" privacy:"plain"`
	Stripped  bool          `json:"stripped"`
	Slices    []SliceInfo   `json:"slices,omitempty" desc:"The architectures of a Mach-O fat file."`
	Hashes    HashesInfo    `json:"hashes"`
	Hardening []CheckInfo   `json:"hardening" desc:"Exploit mitigations, each yes, no, partial, full, unknown or n/a."`
	Toolchain ToolchainInfo `json:"toolchain"`
	GoVersion string        `json:"go_version,omitempty" privacy:"plain"`
	Libraries []string      `json:"libraries" privacy:"plain" desc:"Libraries the file links against."`
	Counts    CountsInfo    `json:"counts"`
	Notable   []NotableInfo `json:"notable_strings" desc:"Strings worth a look: URLs, IP addresses, e-mail addresses, registry keys, paths, commands, key material markers (at most 20)."`
	State     string        `json:"state" privacy:"plain" desc:"complete, or partial when the analysis cut or skipped something (see warnings)."`
}

// CountsInfo are the lengths of the view's lists.
type CountsInfo struct {
	Segments      int  `json:"segments"`
	Sections      int  `json:"sections"`
	Symbols       int  `json:"symbols"`
	Imports       int  `json:"imports"`
	Exports       int  `json:"exports"`
	Libraries     int  `json:"libraries"`
	Relocations   int  `json:"relocations"`
	Entries       int  `json:"entries"`
	GoFunctions   int  `json:"go_functions"`
	FunctionHints int  `json:"function_hints" desc:"Function starts the metadata records (PE .pdata, Mach-O LC_FUNCTION_STARTS)."`
	Strings       int  `json:"strings"`
	StringsCut    bool `json:"strings_truncated,omitempty"`
}

// SliceInfo is one architecture of a fat file.
type SliceInfo struct {
	Arch   string `json:"arch" privacy:"plain"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
}

// HashesInfo are digests of the whole file.
type HashesInfo struct {
	MD5     string `json:"md5" privacy:"plain"`
	SHA1    string `json:"sha1" privacy:"plain"`
	SHA256  string `json:"sha256" privacy:"plain"`
	ImpHash string `json:"imphash,omitempty" privacy:"plain" desc:"PE import hash."`
}

// CheckInfo is one hardening property.
type CheckInfo struct {
	Name   string `json:"name" privacy:"plain"`
	Status string `json:"status" privacy:"plain"`
	Detail string `json:"detail,omitempty" privacy:"plain"`
}

// ToolchainInfo is what built the file.
type ToolchainInfo struct {
	Language  string   `json:"language,omitempty" privacy:"plain"`
	Languages []string `json:"languages,omitempty" privacy:"plain"`
	Compilers []string `json:"compilers,omitempty" privacy:"plain"`
	Evidence  []string `json:"evidence,omitempty" privacy:"plain"`
}

// NotableInfo is one notable string.
type NotableInfo struct {
	Kind    string `json:"kind" privacy:"plain" desc:"url, ip, email, registry, path, command or key."`
	Address string `json:"address" privacy:"plain"`
	Section string `json:"section,omitempty" privacy:"plain"`
	Text    string `json:"text" privacy:"plain"`
}

func triageTool() (*tool.Tool, error) {
	return viewTool("bininspect_triage", "Triage a binary",
		"The first call to make on an open view: format, architecture, entry point, hashes (MD5, SHA-1, SHA-256, PE imphash), "+
			"hardening (PIE, NX, RELRO, canary, FORTIFY, CET; ASLR, DEP, CFG, SafeSEH, signature for PE), toolchain and source language, "+
			"linked libraries, notable strings, how many sections, symbols, imports, exports and strings it has, and whether the analysis is complete.",
		func(ctx context.Context, call *tool.Call, v *boundView, _ noArgs) (TriageResult, error) {
			t := v.Triage()
			r := TriageResult{View: v.handle, Name: t.Name, Format: string(t.Format), Arch: string(t.Arch), Machine: t.Machine, Bits: t.Bits,
				Endian: t.Endian, Kind: t.Kind, Size: t.Size, Entry: binview.Hex(t.Entry), ImageBase: binview.Hex(t.ImageBase),
				Stripped: t.Stripped, GoVersion: t.GoVersion, State: t.State,
				Counts: CountsInfo{Segments: t.Counts.Segments, Sections: t.Counts.Sections, Symbols: t.Counts.Symbols,
					Imports: t.Counts.Imports, Exports: t.Counts.Exports, Libraries: t.Counts.Libraries, Relocations: t.Counts.Relocations,
					Entries: t.Counts.Entries, GoFunctions: t.Counts.GoFunctions, FunctionHints: t.Counts.FunctionHints,
					Strings: t.Counts.Strings, StringsCut: t.Counts.StringsCut},
				Hashes:    HashesInfo{MD5: t.Hashes.MD5, SHA1: t.Hashes.SHA1, SHA256: t.Hashes.SHA256, ImpHash: t.Hashes.ImpHash},
				Toolchain: ToolchainInfo{Language: t.Toolchain.Language, Languages: t.Toolchain.Languages, Compilers: t.Toolchain.Compilers, Evidence: t.Toolchain.Evidence},
				Hardening: []CheckInfo{}, Libraries: append([]string{}, v.Libraries()...), Notable: []NotableInfo{},
			}
			for _, s := range t.Slices {
				r.Slices = append(r.Slices, SliceInfo{Arch: string(s.Arch), Offset: s.Offset, Size: s.Size})
			}
			for _, c := range t.Hardening {
				r.Hardening = append(r.Hardening, CheckInfo{Name: c.Name, Status: c.Status, Detail: c.Detail})
			}
			for _, n := range v.NotableStrings(20) {
				// The engine cuts each to 200 bytes; a token cut there
				// goes whole, as in the strings listing.
				text, _ := v.stringText(n.String, 200)
				r.Notable = append(r.Notable, NotableInfo{Kind: n.Kind, Address: binview.Hex(n.Addr), Section: n.Section,
					Text: strings.ToValidUTF8(text, "\uFFFD")})
			}
			for _, w := range t.Warnings {
				call.Warn(w.Code, w.Message)
			}
			if t.Counts.StringsCut {
				call.Warn("truncated", "the file has more strings than this server extracts; the string list is cut")
			}
			return r, nil
		})
}

// BuildInfoResult is what the file says about how it was built; each
// format fills its own part, and go is set for any Go binary.
type BuildInfoResult struct {
	Go    *GoBuildInfo    `json:"go,omitempty"`
	ELF   *ELFBuildInfo   `json:"elf,omitempty"`
	PE    *PEBuildInfo    `json:"pe,omitempty"`
	MachO *MachOBuildInfo `json:"macho,omitempty"`
}

// GoBuildInfo is a Go binary's build information (present in stripped
// binaries too).
type GoBuildInfo struct {
	Version     string        `json:"version,omitempty" privacy:"plain" desc:"The Go toolchain, such as go1.26.8."`
	Path        string        `json:"path,omitempty" privacy:"plain" desc:"The main package path."`
	Main        *ModuleInfo   `json:"main,omitempty"`
	Deps        []ModuleInfo  `json:"deps,omitempty"`
	Settings    []SettingInfo `json:"settings,omitempty" desc:"Build settings: -ldflags, GOOS, GOARCH, CGO_ENABLED, vcs.revision, ..."`
	Pclntab     string        `json:"pclntab,omitempty" privacy:"plain" desc:"The function table's format version."`
	PclntabAddr string        `json:"pclntab_address,omitempty" privacy:"plain"`
	Functions   int           `json:"functions,omitempty" desc:"Functions in the function table."`
}

// ModuleInfo is a Go module.
type ModuleInfo struct {
	Path           string `json:"path" privacy:"plain"`
	Version        string `json:"version,omitempty" privacy:"plain"`
	Sum            string `json:"sum,omitempty" privacy:"plain"`
	ReplacePath    string `json:"replace_path,omitempty" privacy:"plain" desc:"The module that replaces it (a replace directive)."`
	ReplaceVersion string `json:"replace_version,omitempty" privacy:"plain"`
}

// SettingInfo is a key and a value.
type SettingInfo struct {
	Key   string `json:"key" privacy:"plain"`
	Value string `json:"value" privacy:"plain"`
}

// ELFBuildInfo is an ELF file's build details.
type ELFBuildInfo struct {
	BuildID     string   `json:"build_id,omitempty" privacy:"plain"`
	GoBuildID   string   `json:"go_build_id,omitempty" privacy:"plain"`
	Interpreter string   `json:"interpreter,omitempty" privacy:"path"`
	Needed      []string `json:"needed,omitempty" privacy:"plain" desc:"DT_NEEDED libraries."`
	SOName      string   `json:"soname,omitempty" privacy:"plain"`
	RPath       []string `json:"rpath,omitempty" privacy:"path"`
	RunPath     []string `json:"runpath,omitempty" privacy:"path"`
	Comment     []string `json:"comment,omitempty" privacy:"plain" desc:"The .comment strings (compiler versions)."`
	OSABI       string   `json:"osabi,omitempty" privacy:"plain"`
}

// PEBuildInfo is a PE file's build details.
type PEBuildInfo struct {
	PDBPath       string        `json:"pdb_path,omitempty" privacy:"path" desc:"The PDB path the linker wrote (the build machine's, not this server's)."`
	PDBGUID       string        `json:"pdb_guid,omitempty" privacy:"plain"`
	PDBAge        uint32        `json:"pdb_age,omitempty"`
	Timestamp     uint32        `json:"timestamp" desc:"COFF TimeDateStamp: seconds since 1970, or a hash in reproducible builds."`
	Subsystem     string        `json:"subsystem,omitempty" privacy:"plain"`
	LinkerVersion string        `json:"linker_version,omitempty" privacy:"plain"`
	OSVersion     string        `json:"os_version,omitempty" privacy:"plain"`
	VersionInfo   []SettingInfo `json:"version_info,omitempty" desc:"VS_VERSIONINFO strings: CompanyName, FileVersion, OriginalFilename, ..."`
	Rich          []RichInfo    `json:"rich,omitempty" desc:"Rich header tool records."`
	RichHash      string        `json:"rich_hash,omitempty" privacy:"plain"`
	DotNet        *DotNetInfo   `json:"dotnet,omitempty"`
	Signers       []SignerInfo  `json:"signers,omitempty"`
	Anomalies     []string      `json:"anomalies,omitempty" privacy:"plain"`
	Overlay       int64         `json:"overlay,omitempty" desc:"Bytes after the last section."`
}

// RichInfo is one Rich header record.
type RichInfo struct {
	ProductID uint16 `json:"product_id"`
	Build     uint16 `json:"build"`
	Count     uint32 `json:"count"`
}

// DotNetInfo is a .NET assembly's CLR header.
type DotNetInfo struct {
	RuntimeVersion string   `json:"runtime_version,omitempty" privacy:"plain"`
	Flags          []string `json:"flags,omitempty" privacy:"plain"`
}

// SignerInfo is one Authenticode certificate.
type SignerInfo struct {
	Subject string `json:"subject" privacy:"plain"`
	Issuer  string `json:"issuer,omitempty" privacy:"plain"`
	Valid   bool   `json:"valid" desc:"The signed hash matches the file (the chain is not checked)."`
}

// MachOBuildInfo is a Mach-O file's build details.
type MachOBuildInfo struct {
	UUID     string   `json:"uuid,omitempty" privacy:"plain"`
	Platform string   `json:"platform,omitempty" privacy:"plain"`
	MinOS    string   `json:"min_os,omitempty" privacy:"plain"`
	SDK      string   `json:"sdk,omitempty" privacy:"plain"`
	Tools    []string `json:"tools,omitempty" privacy:"plain"`
	DylibID  string   `json:"dylib_id,omitempty" privacy:"path"`
	RPaths   []string `json:"rpaths,omitempty" privacy:"path"`
	Dylibs   []string `json:"dylibs,omitempty" privacy:"path"`
	Flags    []string `json:"flags,omitempty" privacy:"plain"`
}

func buildInfoTool() (*tool.Tool, error) {
	return viewTool("bininspect_build_info", "Show build information",
		"Show how the file was built: for Go binaries (stripped too) the toolchain version, main module, every dependency with its version and checksum, and the build settings (-ldflags, GOOS, vcs.revision); "+
			"for ELF the build ID, interpreter, needed libraries, SONAME, RPATH/RUNPATH and compiler strings; for PE the PDB path and GUID, "+
			"timestamp, subsystem, linker, version resources, Rich header, .NET runtime, signers and overlay; for Mach-O the UUID, platform, SDK, tools and linked dylibs.",
		func(ctx context.Context, call *tool.Call, v *boundView, _ noArgs) (BuildInfoResult, error) {
			return buildInfoOf(v.BuildInfo()), nil
		})
}

func settings(in []binview.Setting) []SettingInfo {
	var out []SettingInfo
	for _, s := range in {
		out = append(out, SettingInfo{Key: s.Key, Value: s.Value})
	}
	return out
}

func moduleOf(m *binview.Module) *ModuleInfo {
	if m == nil {
		return nil
	}
	mi := &ModuleInfo{Path: m.Path, Version: m.Version, Sum: m.Sum}
	if r := m.Replace; r != nil {
		mi.ReplacePath, mi.ReplaceVersion = r.Path, r.Version
	}
	return mi
}

func buildInfoOf(bi binview.BuildInfo) BuildInfoResult {
	var r BuildInfoResult
	if g := bi.Go; g != nil {
		r.Go = &GoBuildInfo{Version: g.Version, Path: g.Path, Main: moduleOf(g.Main), Settings: settings(g.Settings),
			Pclntab: g.Pclntab, PclntabAddr: hexOrEmpty(g.PclntabAddr), Functions: g.Functions}
		for i := range g.Deps {
			r.Go.Deps = append(r.Go.Deps, *moduleOf(&g.Deps[i]))
		}
	}
	if e := bi.ELF; e != nil {
		r.ELF = &ELFBuildInfo{BuildID: e.BuildID, GoBuildID: e.GoBuildID, Interpreter: e.Interpreter, Needed: e.Needed,
			SOName: e.SOName, RPath: e.RPath, RunPath: e.RunPath, Comment: e.Comment, OSABI: e.OSABI}
	}
	if p := bi.PE; p != nil {
		r.PE = &PEBuildInfo{PDBPath: p.PDBPath, PDBGUID: p.PDBGUID, PDBAge: p.PDBAge, Timestamp: p.Timestamp, Subsystem: p.Subsystem,
			LinkerVersion: p.LinkerVersion, OSVersion: p.OSVersion, VersionInfo: settings(p.VersionInfo), RichHash: p.RichHash,
			Anomalies: p.Anomalies, Overlay: p.Overlay}
		for _, e := range p.Rich {
			r.PE.Rich = append(r.PE.Rich, RichInfo{ProductID: e.ProductID, Build: e.Build, Count: e.Count})
		}
		if d := p.DotNet; d != nil {
			r.PE.DotNet = &DotNetInfo{RuntimeVersion: d.RuntimeVersion, Flags: d.Flags}
		}
		for _, s := range p.Signers {
			r.PE.Signers = append(r.PE.Signers, SignerInfo{Subject: s.Subject, Issuer: s.Issuer, Valid: s.Valid})
		}
	}
	if m := bi.MachO; m != nil {
		r.MachO = &MachOBuildInfo{UUID: m.UUID, Platform: m.Platform, MinOS: m.MinOS, SDK: m.SDK, Tools: m.Tools,
			DylibID: m.DylibID, RPaths: m.RPaths, Dylibs: m.Dylibs, Flags: m.Flags}
	}
	return r
}
