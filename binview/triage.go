package binview

// Triage is the first look at a file: what it is, how it was built and
// hardened, and how much each list holds.
type Triage struct {
	Name      string    `json:"name"`
	Format    Format    `json:"format"`
	Arch      Arch      `json:"arch"`
	Machine   string    `json:"machine,omitempty"`
	Bits      int       `json:"bits"`
	Endian    string    `json:"endian"`
	Kind      string    `json:"kind"`
	Size      int64     `json:"size"`
	ImageBase uint64    `json:"imageBase"`
	Entry     uint64    `json:"entry"`
	Stripped  bool      `json:"stripped"`
	Slices    []Slice   `json:"slices,omitempty"`
	Hashes    Hashes    `json:"hashes"`
	Hardening []Check   `json:"hardening"`
	Toolchain Toolchain `json:"toolchain"`
	// GoVersion is set for Go binaries.
	GoVersion string `json:"goVersion,omitempty"`
	Counts    Counts `json:"counts"`
	// State is "complete", or "partial" when Warnings say a list was
	// cut or a table skipped.
	State    string    `json:"state"`
	Warnings []Warning `json:"warnings,omitempty"`
}

// Counts are the lengths of the view's lists.
type Counts struct {
	Segments      int  `json:"segments"`
	Sections      int  `json:"sections"`
	Symbols       int  `json:"symbols"`
	Imports       int  `json:"imports"`
	Exports       int  `json:"exports"`
	Libraries     int  `json:"libraries"`
	Relocations   int  `json:"relocations"`
	Entries       int  `json:"entries"`
	GoFunctions   int  `json:"goFunctions"`
	FunctionHints int  `json:"functionHints"`
	Strings       int  `json:"strings"`
	StringsCut    bool `json:"stringsTruncated,omitempty"`
}

// Triage summarises the view. It extracts the strings on first call.
func (v *View) Triage() Triage {
	a := v.a
	strs, cut := v.Strings()
	t := Triage{
		Name: v.name, Format: a.Format, Arch: a.Arch, Machine: a.Machine, Bits: a.Bits, Endian: a.Endian, Kind: a.Kind,
		Size: a.FileSize, ImageBase: a.ImageBase, Entry: a.Entry, Stripped: a.Stripped, Slices: a.Slices,
		Hashes: a.Hashes, Hardening: a.Hardening, Toolchain: a.Toolchain,
		Counts: Counts{
			Segments: len(a.Segments), Sections: len(a.Sections), Symbols: len(v.syms), Imports: len(a.Imports),
			Exports: len(a.Exports), Libraries: len(a.Libraries), Relocations: len(a.Relocations), Entries: len(a.Entries),
			GoFunctions: len(a.GoFunctions), FunctionHints: len(a.Hints), Strings: len(strs), StringsCut: cut,
		},
		State: "complete", Warnings: a.Warnings,
	}
	if a.Build.Go != nil {
		t.GoVersion = a.Build.Go.Version
	}
	if len(a.Warnings) > 0 || cut {
		t.State = "partial"
	}
	return t
}
