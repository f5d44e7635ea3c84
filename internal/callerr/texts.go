package callerr

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/mcpactor/mcpactor/messages"
)

// text is e's one-line text, as its case has always read.
func (e *Error) text() string {
	switch e.form {
	case formTransportClosed:
		return e.transportClosedText()
	case formReplaced:
		return "MCP server " + strconv.Quote(e.Server) + ": connection replaced by a new one (generation " + strconv.FormatUint(e.Next, 10) + ")"
	case formWriteStall:
		return fmt.Sprintf("write stalled: the server read none of our input for %dms", e.After.Milliseconds())
	case formTimeout:
		return e.timeoutText()
	case formConnectTimeout:
		return e.connectTimeoutText()
	case formIncompleteClose:
		return "mcpactor: close of MCP server " + strconv.Quote(e.Server) + " did not finish: " + errText(e.Cause)
	case formCanceled:
		return e.canceledText()
	case formStart:
		if e.Command == "" {
			return "could not start MCP server " + strconv.Quote(e.Server) + ": " + errText(e.Cause)
		}
		return "could not start MCP server " + strconv.Quote(e.Server) + " (" + e.Command + "): " + errText(e.Cause)
	case formUnsupportedVersion:
		return e.versionText()
	case formUnsupported:
		return "MCP server " + strconv.Quote(e.Server) + ": " + e.Method + " is not part of protocol version " + e.Version
	case formExtensionNotDeclared:
		return "MCP server " + strconv.Quote(e.Server) + " does not declare the extension " + e.Extension + ", so " + e.Method + " is not sent"
	case formFrameTooLarge:
		var b strings.Builder
		writeRequestPrefix(&b, e.Server, e.Method, e.ID)
		b.WriteString("response of " + strconv.FormatInt(e.Size, 10) + " bytes exceeds the " +
			strconv.Itoa(e.Limit) + "-byte frame limit")
		return b.String()
	case formBadResponse:
		return "MCP server " + strconv.Quote(e.Server) + " sent an unusable answer to " + e.Method +
			" (request " + e.ID.String() + "): " + e.Problem
	case formInvalidResult:
		return e.invalidResultText()
	case formPagination:
		return fmt.Sprintf("MCP server %q: %s stopped after %d pages: %s", e.Server, e.Method, e.Pages, e.Problem)
	case formArguments:
		return e.argumentsText()
	case formHTTPStatus:
		return e.httpStatusText()
	case formSessionExpired:
		s := "MCP server " + strconv.Quote(e.Server) + ": session expired (HTTP " + strconv.Itoa(e.Status)
		if m := shownMethod(e.Method); m != "" {
			s += " to " + m
		}
		return s + ")"
	case formNoResponse:
		var b strings.Builder
		writeRequestPrefix(&b, e.Server, e.Method, messages.ID{})
		b.WriteString("No response received for request ID " + e.ID.String())
		if e.Problem != "" {
			b.WriteString(" (" + e.Problem + ")")
		}
		return b.String()
	case formBadBody:
		return e.badBodyText()
	case formUnreachable, formBrokenAnswer, formAuthorization:
		return e.requestText()
	case formStreamBroken:
		s := "MCP server " + strconv.Quote(e.Server) + ": the response stream of request " + e.ID.String() + " broke before its response"
		if e.Cause != nil {
			s += ": " + e.Cause.Error()
		}
		return s
	case formFallback:
		return e.fallbackText()
	case formUnavailable:
		s := fmt.Sprintf("MCP server %q is unavailable (%s)", e.Server, e.State)
		if e.Cause != nil {
			s += ": " + strings.Join(strings.Fields(e.Cause.Error()), " ")
		}
		return s
	case formUnknownTool:
		return fmt.Sprintf("no managed server offers a tool named %q", e.Tool)
	case formUnknownServer:
		return "no managed server is named " + e.Server
	case formManagerClosed:
		return "mcpactor: manager closed"
	case formQueueTimeout:
		return fmt.Sprintf("MCP server %q: %s waited %dms for one of its %d in-flight slots; not sent", e.Server, e.Method, e.After.Milliseconds(), e.Limit)
	}
	if e.Kind == nil {
		return errText(e.Cause)
	}
	return e.Kind.Error()
}

// transportClosedText reads `MCP server "<name>": <method>: Transport
// closed: <exit status>: <cause>; stderr: <excerpt>; stdout (not
// JSON-RPC): <excerpt>`, each part only when known. The stderr excerpt is
// labelled: what a server printed there (a start-up banner, a warning)
// need not be why it ended. A broken pipe the write met is left out of the
// text when the exit status is known: the server's end says more than the
// pipe's (the Cause still holds it).
func (e *Error) transportClosedText() string {
	var b strings.Builder
	writeRequestPrefix(&b, e.Server, e.Method, messages.ID{})
	b.WriteString("Transport closed")
	cause := e.Cause
	if e.ExitStatus != "" && brokenPipe(cause) {
		cause = nil
	}
	for _, part := range []string{e.ExitStatus, errText(cause)} {
		if part != "" {
			b.WriteString(": ")
			b.WriteString(part)
		}
	}
	if e.Stderr != "" {
		b.WriteString("; stderr: ")
		b.WriteString(e.Stderr)
	}
	if e.Stdout != "" {
		b.WriteString("; stdout (not JSON-RPC): ")
		b.WriteString(e.Stdout)
	}
	return b.String()
}

// timeoutText reads `MCP server "<name>": <method> (id <id>): Request
// timeout after <ms>ms` (or "Notify timeout ..."), each part only when
// known; with neither server nor method, the reference text alone, which
// is also the reason notifications/cancelled gives the server.
func (e *Error) timeoutText() string {
	var b strings.Builder
	writeRequestPrefix(&b, e.Server, e.Method, e.ID)
	if e.Notify {
		b.WriteString("Notify")
	} else {
		b.WriteString("Request")
	}
	b.WriteString(" timeout after ")
	b.WriteString(strconv.FormatInt(e.After.Milliseconds(), 10))
	b.WriteString("ms")
	return b.String()
}

// connectTimeoutText reads "Connection to MCP server "<name>" timed out
// after <ms>ms", and, when stdout lines were skipped, "; <n> non-JSON
// lines on stdout were skipped, the first: "<line>"".
func (e *Error) connectTimeoutText() string {
	s := "Connection to MCP server " + strconv.Quote(e.Server) + " timed out after " +
		strconv.FormatInt(e.After.Milliseconds(), 10) + "ms"
	switch {
	case e.SkippedStdout == 1:
		s += "; 1 non-JSON line on stdout was skipped: " + strconv.Quote(e.Stdout)
	case e.SkippedStdout > 1:
		s += "; " + strconv.FormatInt(e.SkippedStdout, 10) + " non-JSON lines on stdout were skipped, the first: " + strconv.Quote(e.Stdout)
	}
	return s
}

// canceledText reads `MCP server "<name>": <method> (id <id>) cancelled:
// <cause>`, each part only when known (the id is not, for a call cancelled
// before it was sent); with neither server nor method, the cause alone.
func (e *Error) canceledText() string {
	cause := "cancelled"
	if e.Cause != nil {
		cause = e.Cause.Error()
	}
	if e.Server == "" && e.Method == "" {
		return cause
	}
	var b strings.Builder
	if e.Server != "" {
		b.WriteString("MCP server ")
		b.WriteString(strconv.Quote(e.Server))
		b.WriteString(": ")
	}
	if e.Method != "" {
		b.WriteString(e.Method)
		b.WriteString(" ")
	}
	if e.ID.IsValid() {
		b.WriteString("(id ")
		b.WriteString(e.ID.String())
		b.WriteString(") ")
	}
	b.WriteString("cancelled: ")
	b.WriteString(cause)
	return b.String()
}

// versionText names the server and the version, says whether the server
// answered with a version we do not speak or refused ours, and lists the
// versions each side speaks when they are known.
func (e *Error) versionText() string {
	if e.Refused {
		s := "MCP server " + strconv.Quote(e.Server) + " refused protocol version " + strconv.Quote(e.Version)
		if len(e.Theirs) > 0 {
			s += " (it supports: " + strings.Join(e.Theirs, ", ") + "; we speak: " + strings.Join(e.Supported, ", ") + ")"
		}
		return s
	}
	return "MCP server " + strconv.Quote(e.Server) + " answered with unsupported protocol version " +
		strconv.Quote(e.Version) + " (supported: " + strings.Join(e.Supported, ", ") + ")"
}

// invalidResultText reads `MCP server "<server>": invalid <method>
// result: <why> (result starts "<body>")`; why is the skill check or the
// outputSchema violation that failed, or the decoding error.
func (e *Error) invalidResultText() string {
	var why string
	switch {
	case e.Check != "":
		why = e.skillText()
	case e.Violation != "":
		why = "tool " + e.Tool + ": structured output does not match its outputSchema"
		if e.Location != "" {
			why += " at " + e.Location
		}
		why += ": " + e.Violation
	case e.Cause != nil:
		why = e.Cause.Error()
	default:
		why = "%!v(<nil>)"
	}
	return fmt.Sprintf("MCP server %q: invalid %s result: %s (result starts %q)", e.Server, e.Method, why, e.Body)
}

// skillText names the server, the skill (and the file, when not the
// skill's own entry), the check that failed and, when known, what was
// wanted and what was found.
func (e *Error) skillText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCP server %s: skill %s", strconv.Quote(e.Server), e.Skill)
	if e.URI != "" && e.URI != e.Skill {
		fmt.Fprintf(&b, ", file %s,", e.URI)
	}
	fmt.Fprintf(&b, " fails its %s check", e.Check)
	if e.Want != "" || e.Got != "" {
		fmt.Fprintf(&b, ": want %s, got %s", e.Want, e.Got)
	}
	return b.String()
}

// argumentsText reads `MCP server "<server>": tool "<tool>": arguments
// must be a JSON object, not <got> (nothing was sent)`, or says that the
// arguments (a method's params, when Method is set) cannot be encoded as
// JSON and why; the server prefix only when known.
func (e *Error) argumentsText() string {
	var s string
	switch {
	case e.Cause != nil && e.Tool != "":
		s = "tool " + strconv.Quote(e.Tool) + ": arguments cannot be encoded as JSON (nothing was sent): " + e.Cause.Error()
	case e.Cause != nil:
		s = e.Method + ": params cannot be encoded as JSON (nothing was sent): " + e.Cause.Error()
	default:
		s = "tool " + strconv.Quote(e.Tool) + ": arguments must be a JSON object, not " + e.Got + " (nothing was sent)"
	}
	if e.Server != "" {
		s = "MCP server " + strconv.Quote(e.Server) + ": " + s
	}
	return s
}

// httpStatusText reads `MCP server "<name>": HTTP <status> from <url> to
// <method>: <body> [<hints>]`, each part only when known; a body holding a
// JSON-RPC error shows its message and code.
func (e *Error) httpStatusText() string {
	var b strings.Builder
	if e.Server != "" {
		b.WriteString("MCP server " + strconv.Quote(e.Server) + ": ")
	}
	b.WriteString("HTTP ")
	b.WriteString(strconv.Itoa(e.Status))
	if e.URL != "" {
		b.WriteString(" from ")
		b.WriteString(e.URL)
	}
	if m := shownMethod(e.Method); m != "" {
		b.WriteString(" to ")
		b.WriteString(m)
	}
	switch {
	case e.RPC != nil && e.RPC.Message != "":
		// The JSON-RPC error says it better than its JSON.
		b.WriteString(": ")
		b.WriteString(cutLine(e.RPC.Message, 200))
		b.WriteString(" (JSON-RPC error ")
		b.WriteString(strconv.FormatInt(e.RPC.Code, 10))
		b.WriteString(")")
	case e.Body != "":
		b.WriteString(": ")
		b.WriteString(e.Body)
	}
	var hints []string
	if e.WWWAuthenticate != "" {
		hints = append(hints, "WWW-Authenticate: "+e.WWWAuthenticate)
	}
	if e.AuthServer != "" {
		hints = append(hints, "Mcp-Auth-Server: "+e.AuthServer)
	}
	if e.RetryAfter > 0 || e.NotRetried != "" {
		hints = append(hints, "Retry-After: "+e.RetryAfter.String())
	}
	if e.Retries > 0 {
		hints = append(hints, "retried "+strconv.Itoa(e.Retries)+" times")
	}
	if e.NotRetried != "" {
		hints = append(hints, "not retried: "+e.NotRetried)
	}
	if len(hints) > 0 {
		b.WriteString(" [")
		b.WriteString(strings.Join(hints, "; "))
		b.WriteString("]")
	}
	return b.String()
}

// badBodyText names the server, its URL and the method when known, the
// problem, the HTTP status and Content-Type, and the first bytes of the
// body.
func (e *Error) badBodyText() string {
	s := "MCP server " + strconv.Quote(e.Server)
	if e.URL != "" {
		s += " at " + e.URL
	}
	s += " answered"
	if m := shownMethod(e.Method); m != "" {
		s += " " + m
	}
	s += " with " + e.Problem + " (HTTP " + strconv.Itoa(e.Status)
	if e.ContentType != "" {
		s += ", Content-Type " + e.ContentType
	}
	s += ")"
	if e.Body != "" {
		s += ": body starts " + strconv.Quote(e.Body)
	}
	return s
}

// requestText names the server, its URL and the method when known, and
// says whether the server was unreachable, the authorization failed or the
// answer broke off, followed by the cause on one line.
func (e *Error) requestText() string {
	var b strings.Builder
	b.WriteString("MCP server ")
	b.WriteString(strconv.Quote(e.Server))
	m := shownMethod(e.Method)
	if e.form == formBrokenAnswer {
		if e.URL != "" {
			b.WriteString(" at ")
			b.WriteString(e.URL)
		}
		b.WriteString(": the answer")
		if m != "" {
			b.WriteString(" to " + m)
		}
		b.WriteString(" broke off")
	} else {
		if e.form == formAuthorization {
			b.WriteString(": authorization failed")
		} else {
			b.WriteString(" unreachable")
		}
		if e.URL != "" {
			b.WriteString(" at ")
			b.WriteString(e.URL)
		}
		if m != "" {
			b.WriteString(" (" + m + ")")
		}
	}
	if e.Cause != nil {
		b.WriteString(": ")
		b.WriteString(oneLine(e.Cause.Error()))
	}
	return b.String()
}

// fallbackText reads "<the legacy attempt's error> (as legacy HTTP+SSE,
// after Streamable HTTP failed: <its error>)": each names the server and
// the URL (credentials masked) itself.
func (e *Error) fallbackText() string {
	var both []error
	if j, ok := e.Cause.(interface{ Unwrap() []error }); ok {
		both = j.Unwrap()
	}
	if len(both) != 2 {
		return errText(e.Cause)
	}
	return both[0].Error() + " (as legacy HTTP+SSE, after Streamable HTTP failed: " + both[1].Error() + ")"
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// brokenPipe reports whether err is a write to a pipe (or stream) whose
// reader had gone: the consequence of the server's end, not its cause.
func brokenPipe(err error) bool {
	return err != nil && (errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe))
}

// writeRequestPrefix writes `MCP server "<name>": <method> (id <id>): `,
// each part only when known, before the text of an error about a request:
// a log line then says which server and which request, whoever reads it.
func writeRequestPrefix(b *strings.Builder, server, method string, id messages.ID) {
	if server != "" {
		b.WriteString("MCP server ")
		b.WriteString(strconv.Quote(server))
		b.WriteString(": ")
	}
	if method = shownMethod(method); method == "" {
		return
	}
	b.WriteString(method)
	if id.IsValid() {
		b.WriteString(" (id ")
		b.WriteString(id.String())
		b.WriteString(")")
	}
	b.WriteString(": ")
}

// shownMethod is the method an error names: the one the user's call sent.
// The stateless protocol's server/discover is the runtime's own probe at
// connect time, which the user never asked for; an error during it names
// the server and its URL only.
func shownMethod(method string) string {
	if method == messages.MethodServerDiscover {
		return ""
	}
	return method
}

// cutLine is s on one line, at most n bytes (cut at a character
// boundary, "..." added).
func cutLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// oneLine joins the lines of a message.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
