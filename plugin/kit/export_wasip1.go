//go:build wasip1

package kit

import "unsafe"

// The module's side of the ABI (docs/plugins.md).

//go:wasmimport warden host_call
func wardenHostCall(opPtr unsafe.Pointer, opLen uint32, reqPtr unsafe.Pointer, reqLen uint32) uint32

//go:wasmimport warden host_response
func wardenHostResponse(ptr unsafe.Pointer, n uint32) int32

func hostCall(op string, req []byte) ([]byte, error) {
	opb := []byte(op)
	n := wardenHostCall(unsafe.Pointer(unsafe.SliceData(opb)), uint32(len(opb)), unsafe.Pointer(unsafe.SliceData(req)), uint32(len(req)))
	buf := make([]byte, n+1) // never empty, so the pointer is real
	got := wardenHostResponse(unsafe.Pointer(unsafe.SliceData(buf)), n)
	if got < 0 {
		return nil, &Error{Code: "bad_host_reply", Message: "no reply was pending"}
	}
	return buf[:got], nil
}

// in is the buffer the host writes a call's name and arguments into;
// out keeps the last answer alive until the host has read it.
var in, out []byte

//go:wasmexport warden_alloc
func wardenAlloc(n uint32) unsafe.Pointer {
	in = make([]byte, n+1)
	return unsafe.Pointer(unsafe.SliceData(in))
}

//go:wasmexport warden_call
func wardenCall(namePtr unsafe.Pointer, nameLen uint32, argsPtr unsafe.Pointer, argsLen uint32) uint64 {
	name := string(unsafe.Slice((*byte)(namePtr), nameLen))
	args := append([]byte(nil), unsafe.Slice((*byte)(argsPtr), argsLen)...)
	out = Dispatch(name, args)
	return answer(out)
}

//go:wasmexport warden_describe
func wardenDescribe() uint64 {
	out = Describe()
	return answer(out)
}

func answer(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))<<32 | uint64(len(b))
}
