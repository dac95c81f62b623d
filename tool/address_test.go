package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// fakeBinary is a target with a few symbols and sections.
type fakeBinary struct{}

func (fakeBinary) ViewName() string { return "fake.bin" }
func (fakeBinary) Symbol(name string) (uint64, bool) {
	switch name {
	case "main":
		return 0x401000, true
	case "end_of_main":
		return 0x401080, true
	}
	return 0, false
}
func (fakeBinary) Section(name string) (uint64, uint64, bool) {
	if name == ".text" {
		return 0x400000, 0x500000, true
	}
	return 0, 0, false
}
func (fakeBinary) Read(addr uint64, size int) (uint64, error) {
	if addr == 0x401000 {
		return 0x402000, nil
	}
	return 0, errors.New("unmapped /internal/detail")
}
func (fakeBinary) Here() (uint64, bool) { return 0x401010, true }
func (fakeBinary) Start() uint64        { return 0x400000 }
func (fakeBinary) End() uint64          { return 0x500000 }
func (fakeBinary) AddressSize() int     { return 8 }

type readArgs struct {
	Address Address `json:"address" desc:"Where to read"`
	Length  IntExpr `json:"length" default:"0n16" relative:"address" max:"65536" desc:"How many bytes"`
}

type readOut struct {
	Address Address `json:"address"`
	Length  uint64  `json:"length"`
}

// runWithView runs a call of tl whose view resolver always finds v.
func runWithView(tl *Tool, v View, args string) Outcome {
	c := NewCall(tl, json.RawMessage(args), CallEnv{})
	c.SetViewResolver(func(context.Context, *Call, string) (View, []Warning, error) { return v, nil, nil })
	return Invoke(context.Background(), c)
}

func TestAddressParameters(t *testing.T) {
	d := sampleDef("read_bytes")
	d.Scope = ViewScoped
	read := func(ctx context.Context, c *Call, in readArgs) (readOut, error) {
		return readOut{Address: in.Address, Length: uint64(in.Length)}, nil
	}
	tl, err := New(d, read)
	if err != nil {
		t.Fatal(err)
	}
	global, err := New(sampleDef("read_numbers"), read)
	if err != nil {
		t.Fatal(err)
	}
	call := func(args string) *Result {
		return runWithView(tl, fakeBinary{}, args).Result
	}
	good := map[string]string{
		`{"address":"main"}`:                                `{"address":"0x401000","length":16}`,
		`{"address":".text + 0x10"}`:                        `{"address":"0x400010","length":16}`,
		`{"address":"[main].q","length":"0x20"}`:            `{"address":"0x402000","length":32}`,
		`{"address":"main","length":"end_of_main - $here"}`: `{"address":"0x401000","length":128}`,
		`{"address":"main","length":64}`:                    `{"address":"0x401000","length":64}`,
		`{"address":"$here"}`:                               `{"address":"0x401010","length":16}`,
		`{"address":"401000 + 10","length":"0n10"}`:         `{"address":"0x401010","length":10}`,
	}
	for args, want := range good {
		r := call(args)
		if r.IsError || string(r.Structured) != want {
			t.Errorf("%s: got %s %v, want %s", args, r.Structured, r.Content, want)
		}
	}
	bad := map[string]string{
		`{"address":"nosuch"}`:                  `invalid_params: invalid address expression parameter "address": unknown symbol "nosuch" at offset 0`,
		`{"address":12}`:                        `invalid_params: parameter "address" must be a string (an address expression)`,
		`{"address":"  "}`:                      `invalid_params: parameter "address" must not be empty`,
		`{"address":"main","length":-1}`:        `invalid_params: parameter "length" must be a non-negative integer or an expression string`,
		`{"address":"main","length":"0x20000"}`: `invalid_params: parameter "length" must be at most 65536`,
	}
	for args, want := range bad {
		r := call(args)
		if !r.IsError || r.Content[0].Text != want {
			t.Errorf("%s:\n got %q\nwant %q", args, r.Content[0].Text, want)
		}
	}
	r := call(`{"address":"[0x10].q"}`)
	if !r.IsError || r.ErrorCode != CodeInvalidParams || strings.Contains(r.Content[0].Text, "/internal") {
		t.Errorf("failed read: %+v", r.Content)
	}
	// Without a target only numbers evaluate.
	r = runWithView(global, fakeBinary{}, `{"address":"0x10 * 2"}`).Result
	if r.IsError || string(r.Structured) != `{"address":"0x20","length":16}` {
		t.Errorf("no target: %s %v", r.Structured, r.Content)
	}
}

func TestRelativeMustNameAnEarlierAddress(t *testing.T) {
	type bad struct {
		Length IntExpr `json:"length" relative:"address"`
		Addr   Address `json:"address"`
	}
	if _, err := New(sampleDef("x"), func(context.Context, *Call, bad) (string, error) { return "", nil }); err == nil {
		t.Error("relative to a later parameter accepted")
	}
}
