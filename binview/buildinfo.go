package binview

// BuildInfo is what the file says about how it was built. Each format
// fills its own part; Go is set for any Go binary, whatever its format.
type BuildInfo struct {
	Go    *GoBuild    `json:"go,omitempty"`
	ELF   *ELFBuild   `json:"elf,omitempty"`
	PE    *PEBuild    `json:"pe,omitempty"`
	MachO *MachOBuild `json:"macho,omitempty"`
}
