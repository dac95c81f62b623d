package isolate

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/errcode"
)

// requestMagic starts a request on the child's standard input.
const requestMagic = "binview-isolate/1\n"

// errorMagic starts a coded failure on the child's standard output;
// anything else there is a snapshot.
const errorMagic = "binview-error "

// maxHeader bounds the request header.
const maxHeader = 64 << 10

// The jobs a child runs.
const (
	jobAnalyze = ""     // binview.Analyze: the snapshot on stdout
	jobCode    = "code" // binview.RunCode: frames on stdout
)

// header is the JSON part of a request.
type header struct {
	// Job is jobAnalyze or jobCode.
	Job     string          `json:"job,omitempty"`
	Options binview.Options `json:"options"`
	// Memory is the memory limit (RLIMIT_DATA) in bytes; CPU the
	// CPU-time limit in seconds. Zero: none.
	Memory int64 `json:"memory"`
	CPU    int64 `json:"cpu"`
	// A code job's stage, and the length of the analysis snapshot that
	// follows the header, before the file.
	Stage    binview.CodeStage `json:"stage,omitempty"`
	Snapshot int64             `json:"snapshot,omitempty"`
}

// writeRequest writes a request: the magic, a 4-byte big-endian header
// length, the header, each of pre (a code job's snapshot), then the
// file's bytes to the end of the stream.
func writeRequest(w io.Writer, h header, data []byte, pre ...[]byte) error {
	hb, err := json.Marshal(h)
	if err != nil {
		return err
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(hb)))
	bw := bufio.NewWriter(w)
	bw.WriteString(requestMagic)
	bw.Write(n[:])
	bw.Write(hb)
	if err := bw.Flush(); err != nil {
		return err
	}
	for _, p := range pre {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	_, err = w.Write(data)
	return err
}

// readHeader reads a request's magic and header.
func readHeader(r io.Reader) (header, error) {
	var h header
	magic := make([]byte, len(requestMagic)+4)
	if _, err := io.ReadFull(r, magic); err != nil {
		return h, fmt.Errorf("request header: %w", err)
	}
	if !bytes.HasPrefix(magic, []byte(requestMagic)) {
		return h, fmt.Errorf("not an isolate request")
	}
	n := binary.BigEndian.Uint32(magic[len(requestMagic):])
	if n > maxHeader {
		return h, fmt.Errorf("request header too large")
	}
	hb := make([]byte, n)
	if _, err := io.ReadFull(r, hb); err != nil {
		return h, fmt.Errorf("request header: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(hb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return h, fmt.Errorf("request header: %w", err)
	}
	if h.Options.Timeout < 0 || h.Options.Timeout > 24*time.Hour || h.Options.CodeTimeout < 0 || h.Options.CodeTimeout > 24*time.Hour {
		return h, fmt.Errorf("bad timeout")
	}
	switch h.Job {
	case jobAnalyze:
	case jobCode:
		if h.Snapshot <= 0 || h.Snapshot > binview.MaxSnapshotSize || h.Stage != binview.CodeFunctions && h.Stage != binview.CodeReferences {
			return h, fmt.Errorf("bad code job")
		}
	default:
		return h, fmt.Errorf("unknown job")
	}
	return h, nil
}

// childCodes are the codes a child may report; any other becomes
// analysis_failed.
var childCodes = map[string]string{
	binview.CodeUnsupportedFormat: "the file is not ELF, PE or Mach-O; open it as raw bytes with an architecture",
	binview.CodeUnsupportedArch:   "a raw load needs a known architecture",
	binview.CodeFileTooLarge:      "the file is larger than the limit",
	binview.CodeAnalysisFailed:    "the file could not be analysed: it is malformed or hostile",
	binview.CodeAnalysisTimeout:   "the analysis ran out of time",
	binview.CodeInvalidOptions:    "an option is out of range",
}

// writeError reports a coded failure: only the code crosses the process
// boundary; the parent supplies the message.
func writeError(w io.Writer, err error) error {
	code := errcode.CodeOf(err)
	if _, ok := childCodes[code]; !ok {
		code = binview.CodeAnalysisFailed
	}
	_, werr := io.WriteString(w, errorMagic+code+"\n")
	return werr
}

// parseResult decodes the child's output: a coded failure or a
// snapshot.
func parseResult(out []byte) (*binview.Analysis, error) {
	if rest, ok := bytes.CutPrefix(out, []byte(errorMagic)); ok {
		code := string(bytes.TrimSpace(rest))
		msg, known := childCodes[code]
		if !known {
			return nil, failed("bad_output", fmt.Errorf("unknown child code %q", code))
		}
		return nil, errcode.New(code, msg)
	}
	a, err := binview.UnmarshalAnalysis(out)
	if err != nil {
		return nil, failed("bad_output", err)
	}
	return a, nil
}

// Reasons, the public "reason" detail of a failure.
const (
	ReasonMemory    = "memory_limit"
	ReasonCPU       = "cpu_limit"
	ReasonWallClock = "wall_clock"
	ReasonCanceled  = "canceled"
	ReasonCrashed   = "crashed"
	ReasonKilled    = "killed"
	ReasonBadOutput = "bad_output"
	ReasonTooLarge  = "output_too_large"
	ReasonStart     = "start_failed"
)

func failed(reason string, cause error) error {
	return errcode.Wrap(binview.CodeAnalysisFailed, "the analysis process failed", cause).WithDetail("reason", reason)
}

func timedOut(reason string, cause error) error {
	return errcode.Wrap(binview.CodeAnalysisTimeout, "the analysis ran out of time", cause).WithDetail("reason", reason)
}
