package supervisor

import (
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
)

// ManagerOptions.Approve is the user's code, and may ask a person: it runs
// off the manager's actor, so that a slow answer holds up only the server
// it is about. The server waits meanwhile, StateConnecting with no tools;
// the answer comes back to the actor by message (approvalAnswered). The
// calls are made one at a time, in the order the servers were added, on a
// worker of their own (manager_worker.go): Approve need not be safe for
// concurrent use, a prompt is never interleaved with another, and a slow
// answer holds up no cache read.

// errNotApproved is the LastError of a server refused for want of
// approval.
var errNotApproved = errors.New("needs approval (a project-level server, or a command from a project file); not given")

// approvalAnswered is Approve's answer for a server.
type approvalAnswered struct {
	name string
	// member is the member asked about, compared with the current one
	// and never read off the actor.
	member *member
	err    error // nil: approved
}

// approvalRequest is a server waiting for Approve.
type approvalRequest struct {
	// withdrawn is set by the actor when the server is removed before
	// its turn: nobody is asked about a server that is gone.
	withdrawn atomic.Bool
}

// askApproval queues a server for Approve, on the approvals worker; the
// member keeps the request, to withdraw it.
func (a *managerActor) askApproval(mb *member) {
	req := &approvalRequest{}
	mb.approval = req
	approve, log, panics, srv := a.opts.Approve, a.log, &a.approvePanics, mb.srv
	a.approvals.do(func() any {
		if req.withdrawn.Load() {
			return nil
		}
		return approvalAnswered{name: srv.Name, member: mb, err: callApprove(approve, srv, log, panics)}
	})
}

// callApprove asks Approve about one server. A panic in user code must not
// take the process down: it is logged (one line), counted, and the server
// is refused, the answer that runs nothing.
func callApprove(approve func(*Server) bool, s *Server, log *slog.Logger, panics *atomic.Int64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			n := panics.Add(1)
			log.Error("mcp: Approve panicked; the server is not approved", "server", s.Name,
				"panic", oneLine(fmt.Sprint(r)), "panics_total", n)
			err = fmt.Errorf("%w (Approve panicked)", errNotApproved)
		}
	}()
	if !approve(s) {
		return errNotApproved
	}
	return nil
}
