// Command hostile is a plugin that misbehaves on purpose, one way per
// tool, for the host's tests.
package main

import (
	"os"
	"strings"
	"unsafe"

	"github.com/warden-mcp/warden/plugin/kit"
)

type textArgs struct {
	Text string `json:"text" maxLength:"100000"`
}

type textResult struct {
	Text string `json:"text"`
}

type none struct{}

var keep [][]byte
var counter int

//go:wasmimport warden host_call
func hostCall(opPtr unsafe.Pointer, opLen uint32, reqPtr unsafe.Pointer, reqLen uint32) uint32

//go:wasmimport warden host_response
func hostResponse(ptr unsafe.Pointer, n uint32) int32

func init() {
	kit.Add("hostile_echo", func(c *kit.Call, in textArgs) (textResult, error) {
		return textResult{Text: in.Text}, nil
	})
	kit.Add("hostile_counter", func(c *kit.Call, in none) (textResult, error) {
		counter++
		return textResult{Text: strings.Repeat("x", counter)}, nil
	})
	kit.Add("hostile_loop", func(c *kit.Call, in none) (textResult, error) {
		for {
			counter++
		}
	})
	kit.Add("hostile_alloc", func(c *kit.Call, in none) (textResult, error) {
		for {
			keep = append(keep, make([]byte, 1<<20))
		}
	})
	kit.Add("hostile_exit", func(c *kit.Call, in none) (textResult, error) {
		os.Exit(3)
		return textResult{}, nil
	})
	kit.Add("hostile_oob", func(c *kit.Call, in none) (textResult, error) {
		p := (*byte)(unsafe.Pointer(uintptr(0xfffffff0)))
		*p = 1
		return textResult{}, nil
	})
	kit.Add("hostile_flood", func(c *kit.Call, in none) (textResult, error) {
		return textResult{Text: strings.Repeat("A", 2<<20)}, nil
	})
	kit.Add("hostile_bad_pointer", func(c *kit.Call, in none) (textResult, error) {
		hostCall(unsafe.Pointer(uintptr(0xfffffff0)), 10, nil, 0)
		return textResult{}, nil
	})
	kit.Add("hostile_bad_request", func(c *kit.Call, in none) (textResult, error) {
		// Not JSON, an unknown function, a capability not granted.
		var out []string
		for _, e := range []error{rawCall("log", "{not json"), rawCall("fs.read", "{}"), c.View("functions", map[string]any{}, nil)} {
			if e != nil {
				out = append(out, e.Error())
			}
		}
		return textResult{Text: strings.Join(out, "\n")}, nil
	})
	kit.Add("hostile_out_of_turn", func(c *kit.Call, in none) (textResult, error) {
		buf := make([]byte, 16)
		n := hostResponse(unsafe.Pointer(&buf[0]), 16)
		if n >= 0 {
			return textResult{}, &kit.Error{Code: "unexpected", Message: "a reply was pending"}
		}
		return textResult{Text: "refused"}, nil
	})
	kit.Add("hostile_short_buffer", func(c *kit.Call, in none) (textResult, error) {
		op, req := []byte("cancelled"), []byte("{}")
		hostCall(unsafe.Pointer(&op[0]), uint32(len(op)), unsafe.Pointer(&req[0]), uint32(len(req)))
		buf := make([]byte, 1)
		hostResponse(unsafe.Pointer(&buf[0]), 1)
		return textResult{}, nil
	})
	// Asked at start-up, outside any call: the host refuses.
	initReply = rawCall("log", `{"level":"info","message":"hi"}`)
	kit.Add("hostile_init_reply", func(c *kit.Call, in none) (textResult, error) {
		if initReply == nil {
			return textResult{Text: "none"}, nil
		}
		return textResult{Text: initReply.Error()}, nil
	})
}

var initReply error

func rawCall(op, req string) error {
	o, r := []byte(op), []byte(req)
	n := hostCall(unsafe.Pointer(&o[0]), uint32(len(o)), unsafe.Pointer(&r[0]), uint32(len(r)))
	buf := make([]byte, n+1)
	got := hostResponse(unsafe.Pointer(&buf[0]), n)
	s := string(buf[:max(got, 0)])
	if strings.Contains(s, `"error"`) {
		return &kit.Error{Code: "host", Message: s}
	}
	return nil
}

func main() {}
