package transport

import (
	"errors"
	"net/url"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/redact"
)

// requestError builds the error (callerr.NewRequestFailed) of a request to
// rawURL that failed with err; status is the status of an answer that had
// begun and broke off, 0 when no answer came. net/http's *url.Error quotes the URL as it was, credentials and
// all: it is kept (for errors.As and its Timeout) with the URL masked, and
// the text shows only what went wrong. secrets are the configured header
// values, masked wherever they show.
func requestError(server, method, rawURL string, status int, err error, secrets []string) *callerr.Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = &quietURLError{ue: &url.Error{Op: ue.Op, URL: redact.URL(ue.URL), Err: ue.Err}, secrets: secrets}
	}
	return callerr.NewRequestFailed(&callerr.Error{Server: server, Method: method, URL: redact.URL(rawURL), Status: status, Cause: err})
}

// quietURLError is a *url.Error whose text leaves out the operation and the
// URL (the error around it names them, masked): what went wrong
// only, with secrets masked.
type quietURLError struct {
	ue      *url.Error
	secrets []string
}

func (e *quietURLError) Error() string {
	return redact.Text(e.ue.Err.Error(), e.secrets...)
}

// Unwrap returns the *url.Error, for errors.As (and its Timeout).
func (e *quietURLError) Unwrap() error { return e.ue }
