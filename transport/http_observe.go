package transport

import (
	"net/http"
	"strconv"
)

// protocolObserver is the optional part of a CallObserver that learns the
// HTTP version of the answers to its request: telemetry's
// network.protocol.version (*telemetry.Op has it). Optional, as Resume
// and Retry are, so that an observer that does not care need not say so.
type protocolObserver interface {
	SetNetworkProtocolVersion(v string)
}

// observeProtocol tells a request's observer obs (nil: none) the HTTP
// version of resp, an answer to the request (its POST, or the GET resuming
// its stream).
func observeProtocol(obs CallObserver, resp *http.Response) {
	if obs == nil {
		return
	}
	if o, ok := obs.(protocolObserver); ok {
		if v := httpVersion(resp.ProtoMajor, resp.ProtoMinor); v != "" {
			o.SetNetworkProtocolVersion(v)
		}
	}
}

// httpVersion is network.protocol.version for HTTP major.minor, written
// as telemetry.HTTPProtocolVersion writes it ("1.1", "2"; the transport
// does not import telemetry): "" when not known.
func httpVersion(major, minor int) string {
	switch {
	case major <= 0:
		return ""
	case major == 1:
		return "1." + strconv.Itoa(minor)
	case minor == 0:
		return strconv.Itoa(major)
	}
	return strconv.Itoa(major) + "." + strconv.Itoa(minor)
}
