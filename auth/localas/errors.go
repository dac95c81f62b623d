package localas

import (
	"encoding/json"
	"net/http"
)

// protocolError is an error answer of the OAuth protocol (RFC 6749 §4.1.2.1
// and §5.2): the code a client acts on, a description for a person, and
// the HTTP status when it is not sent back by redirect. Descriptions
// never carry a token, a code or a cause from the store.
type protocolError struct {
	code   string
	desc   string
	status int
}

func (e *protocolError) Error() string { return e.code + ": " + e.desc }

func errInvalidRequest(desc string) *protocolError {
	return &protocolError{"invalid_request", desc, http.StatusBadRequest}
}

func errInvalidGrant(desc string) *protocolError {
	return &protocolError{"invalid_grant", desc, http.StatusBadRequest}
}

func errInvalidClient(desc string) *protocolError {
	return &protocolError{"invalid_client", desc, http.StatusUnauthorized}
}

// errUnavailable answers a request the store could not serve; the cause
// is logged, not sent.
var errUnavailable = &protocolError{"temporarily_unavailable", "The authorization server cannot serve this request now; retry later.", http.StatusServiceUnavailable}

// writeOAuthJSON sends e as the JSON body of an OAuth error response.
func writeOAuthJSON(w http.ResponseWriter, e *protocolError) {
	h := w.Header()
	h.Set("Content-Type", "application/json;charset=UTF-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(e.status)
	json.NewEncoder(w).Encode(map[string]string{"error": e.code, "error_description": e.desc})
}

func writeJSONError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}
