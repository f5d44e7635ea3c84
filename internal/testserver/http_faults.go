package testserver

import (
	"net/http"
	"strconv"
	"time"
)

// The HTTP faults of Options, each a way an MCP server over HTTP goes
// wrong that a client must survive. Like ExitAfterRequests they act on
// tools/call requests, so that a handshake still works and a test chooses
// the moment.

// notJSONBody is the HTTPNotJSON fault's body: what a proxy in front of a
// dead server sends, under a Content-Type that promises JSON.
const notJSONBody = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n"

// slowBodyEvery is how often the HTTPSlowBody fault lets one more byte out.
const slowBodyEvery = 20 * time.Millisecond

// callFault answers a tools/call POST with the fault Options asks for, if
// any, and reports whether it did. The call is not handled: the server
// never sees it.
func (h *HTTPHandler) callFault(w *statusWriter, r *http.Request, m *message) bool {
	switch {
	case h.opts.HTTPFailCalls > 0 && h.failedCalls.Add(1) <= int64(h.opts.HTTPFailCalls):
		status := h.opts.HTTPFailStatus
		if status == 0 {
			status = http.StatusInternalServerError
		}
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		httpError(w, status, codeInternalError, http.StatusText(status)+" (testserver fault)")
		return true
	case h.opts.HTTPNotJSON:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(notJSONBody))
		return true
	case h.opts.HTTPSlowBody:
		h.slowBody(w, r, m.ID)
		return true
	}
	return false
}

// slowBody implements HTTPSlowBody: the answer starts like the call's
// response and then trickles, one byte every slowBodyEvery, for as long as
// the client reads (a slow-loris body). With HTTPStream it is an event's
// data line that never ends.
func (h *HTTPHandler) slowBody(w *statusWriter, r *http.Request, id []byte) {
	rc := http.NewResponseController(w)
	head := []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[{"type":"text","text":"`)
	if h.opts.HTTPStream {
		w.Header().Set("Content-Type", "text/event-stream")
		head = append([]byte("data: "), head...)
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(head); err != nil || rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(slowBodyEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if _, err := w.Write([]byte{'x'}); err != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-h.ctx.Done():
			panic(http.ErrAbortHandler)
		}
	}
}

// ignoreBody implements HTTPIgnoreBodyOver: the request's body is never
// read and the request never answered. net/http watches a connection for
// the client leaving only once the body has been read, so nothing but
// Close ends this handler: the client alone must give up, and its write of
// the body may block once the connection's buffers are full.
func (h *HTTPHandler) ignoreBody(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-h.ctx.Done():
		panic(http.ErrAbortHandler) // the server goes away mid-request
	}
}

// delay implements HTTPNotifyDelay: it waits d, or less if the client
// goes away (false); Close aborts it.
func (h *HTTPHandler) delay(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	return await(h, r, t.C)
}

// getFault implements HTTPGetStatus: the GET listener answered with a
// status instead of a stream. 405 is the specified "no stream here"; 200
// comes with a JSON body, as a server that routes every method to its
// POST handler sends.
func (h *HTTPHandler) getFault(w *statusWriter, r *http.Request, status int) {
	switch status {
	case http.StatusOK:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"result":{}}`))
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", "POST, DELETE")
		httpError(w, status, codeServerError, "Method not allowed")
	case http.StatusNotFound:
		http.NotFound(w, r)
	default:
		http.Error(w, strconv.Itoa(status)+" "+http.StatusText(status), status)
	}
}
