package supervisor

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/url"
	"os/exec"
	"sync/atomic"
	"syscall"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/messages"
)

// How the manager's view of a server follows what its calls meet. A
// remote server that restarts can leave a connection that looks alive
// (no process to watch, no keepalive asked for) while every call fails:
// callers count the failures of the transport in a row, and the manager
// hears of it once, when the count reaches CallFailureThreshold; the
// server is then marked unhealthy and restarted through its restart
// policy, as a keepalive that fails would have it.

// CallFailureThreshold is how many calls through the manager in a row may
// fail in the transport (unreachable, session expired, an answer that
// never came, an HTTP 5xx; a connection that ended is reported to the
// manager by its client, and restarted on that news alone) before
// the server is marked unhealthy and restarted. A success, or an error
// the server answered with (a JSON-RPC error; a tool error is a result),
// resets the count; timeouts and cancellations leave it as it is: they
// say the caller gave up, not that the server is gone.
const CallFailureThreshold = 3

// callHealth counts a server's transport failures in a row, written by
// callers with atomics (no lock and no message on a call's path), reset
// by the manager when a new connection is ready. One per member.
type callHealth struct{ failures atomic.Int32 }

// observe records a call's outcome; it reports true once, for the call
// whose failure reaches the threshold.
func (h *callHealth) observe(err error) bool {
	if h == nil {
		return false
	}
	switch {
	case err == nil || answered(err):
		if h.failures.Load() != 0 {
			h.failures.Store(0)
		}
	case transportFailure(err):
		return h.failures.Add(1) == CallFailureThreshold
	}
	return false
}

// answered reports an error the server itself sent: it is up.
func answered(err error) bool {
	var rpc *callerr.RPCError
	return errors.As(err, &rpc)
}

// transportFailure reports an error that says the connection to the
// server does not work, as opposed to a slow answer, a caller that gave
// up, or the server's own refusal.
func transportFailure(err error) bool {
	if errors.Is(err, errkind.ErrTransportClosed) {
		// A connection that ended is the client's news to the manager
		// already (actors.ServerDown), which applies the restart
		// policy once; counting its calls too would restart it twice. A
		// close that was asked for, or a connection replaced by a
		// restart, is the manager's own doing.
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// The caller gave up (its context ended, or the request timeout
		// did), even when the transport wraps it in an unreachable error: a
		// slow answer is not a dead connection (CallFailureThreshold).
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		// A timeout of the network layer (a dial or a read deadline) is
		// a slow answer as well.
		return false
	}
	if status := callerr.HTTPStatus(err); status != nil {
		return status.Status >= 500
	}
	if errors.Is(err, errkind.ErrAuthorization) {
		// The authorizer's failure (a refused grant, a user step to
		// take): a new connection would meet it again.
		return false
	}
	return lostExchange(err)
}

// lostExchange reports an HTTP exchange that failed for want of the
// connection: no answer, an answer that broke off, a session that
// expired, an SSE stream that ended with no response.
// A 2026-07-28 response stream that broke (callerr.StreamBroken) is not
// one.
func lostExchange(err error) bool {
	if broken := callerr.BrokenAnswer(err); broken != nil && callerr.StreamBroken(broken) != broken {
		return true
	}
	return callerr.Unreachable(err) != nil || callerr.SessionExpired(err) != nil || callerr.NoResponse(err) != nil
}

// cannotHeal reports a start error that no restart will mend: the command
// does not exist, may not be run, or is not a program this machine can
// run (ENOEXEC, "exec format error": a binary of another architecture,
// a script without its #! line), the configuration or the URL is
// invalid. Such a server goes straight to StateFailed.
func cannotHeal(err error) bool {
	var ce *messages.ConfigError
	if errors.As(err, &ce) {
		return true
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Op == "parse" {
		return true
	}
	if callerr.Start(err) == nil {
		return false
	}
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, syscall.ENOEXEC)
}
