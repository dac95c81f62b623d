//go:build !wasip1

package kit

// hostCall outside WebAssembly: there is no host. Handlers run natively
// only in their own tests, where host functions fail.
func hostCall(op string, req []byte) ([]byte, error) {
	return nil, &Error{Code: "no_host", Message: "host functions are served only when Warden runs the plugin"}
}
