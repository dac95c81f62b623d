package toolset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/internal/httplimit"
)

// UploadPath is where a hosted server accepts file uploads.
const UploadPath = "/uploads"

// UploadResult is the answer to an upload: the blob reference that
// bininspect_open takes, the size and when the blob lapses unused.
type UploadResult struct {
	Blob    string `json:"blob"`
	Size    int64  `json:"size"`
	Expires string `json:"expires"`
}

// UploadHandler accepts PUT /uploads: the file as the request body,
// streamed into memory up to the file size limit and hashed as it comes,
// charged to the caller's daily upload allowance, and kept as a blob the
// caller's tenant may open. The wiring puts it behind the same
// authentication, caller binding and rate limit as the protocol
// endpoint; a request without a principal is refused. Browsers are
// refused (a request with an Origin header): uploads come from
// warden upload and scripts, never from web pages.
//
// Uploads are held in memory, so the server receives at most MaxUploads
// at once, and one caller at most MaxUploadsPerCaller of them (503
// server_busy beyond either). A body must keep arriving at UploadMinRate
// after UploadGrace (408 upload_too_slow otherwise), so a slow or stalled
// client gives its place back instead of holding it.
func (b *BinaryViews) UploadHandler() http.Handler {
	return http.HandlerFunc(b.serveUpload)
}

func (b *BinaryViews) serveUpload(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPut {
		w.Header().Set("Allow", http.MethodPut)
		writeUploadError(w, http.StatusMethodNotAllowed, errcode.New("method_not_allowed", "upload a file with PUT"))
		return
	}
	if r.Header.Get("Origin") != "" {
		writeUploadError(w, http.StatusForbidden, errcode.New("origin_not_allowed", "uploads are not accepted from browsers; use warden upload"))
		return
	}
	ctx := r.Context()
	who, err := b.who(ctx)
	if err != nil {
		writeUploadError(w, http.StatusUnauthorized, err)
		return
	}
	max := b.o.MaxFileSize
	if r.ContentLength > max {
		writeUploadError(w, http.StatusRequestEntityTooLarge, errFileTooLarge(max))
		return
	}
	now := b.now()
	if r.ContentLength > 0 {
		// Refuse at once, before the body arrives, what cannot fit today.
		if err := b.quotaFits(ctx, who, r.ContentLength, now); err != nil {
			writeUploadError(w, statusOf(err), err)
			return
		}
	}
	// The caller's share is taken first, then a place in the server's
	// pool; the body must then keep arriving at the minimum rate, so
	// that neither one caller nor a few slow links hold every place.
	if !b.uploadShares.Take(who.key(), b.o.MaxUploadsPerCaller) {
		// The body is left unread: closing the connection keeps net/http
		// from waiting for it before it answers.
		w.Header().Set("Connection", "close")
		writeUploadError(w, http.StatusServiceUnavailable, &errcode.Error{Code: "server_busy",
			Message: "you have as many uploads running as this server lets one caller run; wait for one to finish", RetryAfter: 2 * time.Second})
		return
	}
	defer b.uploadShares.Give(who.key())
	select {
	case b.uploads <- struct{}{}:
		defer func() { <-b.uploads }()
	default:
		w.Header().Set("Connection", "close")
		writeUploadError(w, http.StatusServiceUnavailable, &errcode.Error{Code: "server_busy",
			Message: "too many uploads at once; try again shortly", RetryAfter: 2 * time.Second})
		return
	}
	pace := httplimit.BodyPace{Timeout: b.o.UploadGrace, MinRate: b.o.UploadMinRate}
	paced := httplimit.PaceBody(w, r, pace)
	// A large body on a slow link outlasts the server's own write
	// timeout, which runs from the request's start.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(pace.Longest(max) + time.Minute))
	h := sha256.New()
	size := r.ContentLength
	if size < 0 || size > max {
		size = 0
	}
	buf := make([]byte, 0, size+1)
	body := io.TeeReader(io.LimitReader(paced, max+1), h)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if httplimit.IsBodyTimeout(err) {
			b.log.LogAttrs(ctx, slog.LevelInfo, "upload too slow", slog.Int64("received", paced.Received()))
			w.Header().Set("Connection", "close")
			writeUploadError(w, http.StatusRequestTimeout, errcode.New(CodeUploadTooSlow,
				"the upload arrived slower than "+sizeWords(b.o.UploadMinRate)+" a second; send it over a faster link"))
			return
		}
		if err != nil {
			b.log.LogAttrs(ctx, slog.LevelInfo, "upload not received", slog.String("cause", err.Error()))
			writeUploadError(w, http.StatusBadRequest, errcode.New("upload_incomplete", "the upload did not arrive whole; try again"))
			return
		}
	}
	if int64(len(buf)) > max {
		// The deadline stays, so net/http does not wait for the rest.
		writeUploadError(w, http.StatusRequestEntityTooLarge, errFileTooLarge(max))
		return
	}
	paced.Done()
	if len(buf) == 0 {
		writeUploadError(w, http.StatusBadRequest, errcode.New("empty_upload", "the upload is empty; send the file as the request body"))
		return
	}
	if err := b.chargeUpload(ctx, who, int64(len(buf)), now); err != nil {
		writeUploadError(w, statusOf(err), err)
		return
	}
	sha := hex.EncodeToString(h.Sum(nil))
	until := now.Add(b.o.BlobTTL)
	if err := b.store.PutBlob(ctx, sha, buf, until); err != nil {
		b.log.LogAttrs(ctx, slog.LevelError, "upload not stored", slog.String("cause", err.Error()))
		writeUploadError(w, http.StatusServiceUnavailable, storeErr(err))
		return
	}
	if err := b.store.Grant(ctx, who.tenant, sha, until); err != nil {
		writeUploadError(w, http.StatusServiceUnavailable, storeErr(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(UploadResult{Blob: BlobRef(sha), Size: int64(len(buf)), Expires: rfc3339(until)})
}

// statusOf is the HTTP status of an upload refusal.
func statusOf(err error) int {
	switch errcode.CodeOf(err) {
	case CodeUploadQuota:
		return http.StatusTooManyRequests
	case binview.CodeFileTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeViewsUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// writeUploadError answers {"error":{"code","message"}}, as the request
// path's other refusals do, with Retry-After when a retry can cure it.
func writeUploadError(w http.ResponseWriter, status int, err error) {
	e, ok := errcode.As(err)
	if !ok {
		e = &errcode.Error{Code: "upload_failed", Message: "the upload failed"}
	}
	body := map[string]any{"code": e.Code, "message": e.Message}
	if e.RetryAfter > 0 {
		secs := int64(e.RetryAfter/time.Second) + 1
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		body["retryAfterSeconds"] = secs
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": body})
}
