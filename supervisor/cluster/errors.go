package cluster

import (
	"errors"
	"fmt"
)

// Sentinels that the typed errors below match with errors.Is.
var (
	// ErrMemberLost: the member owning the identity left the cluster
	// (membership dropped it, or its connection broke) while the call was
	// in flight or being routed. The call may or may not have run.
	ErrMemberLost = errors.New("cluster: member lost")
	// ErrNotOwner: the member reached does not hold the identity's
	// ownership key (any more); the caller routes again.
	ErrNotOwner = errors.New("cluster: not the owner")
	// ErrStopped: the member was stopped.
	ErrStopped = errors.New("cluster: member stopped")
	// ErrUnknownServer: no server of that name is configured.
	ErrUnknownServer = errors.New("cluster: unknown server")
	// ErrNoMember: no live member could take the identity.
	ErrNoMember = errors.New("cluster: no live member")
	// ErrEtcdUnavailable: a member cannot reach etcd, so ownership
	// cannot be checked or taken (see EtcdUnavailableError).
	ErrEtcdUnavailable = errors.New("cluster: etcd unavailable")
	// ErrTooManyActivations: the member picked to own a tenant's session
	// owns Config.MaxTenantActivations of them already.
	ErrTooManyActivations = errors.New("cluster: too many tenant sessions on the member")
	// ErrProgressNotCarried: StartToolTask's options set
	// CallOptions.OnProgress, which a task's start cannot carry (see
	// ProgressNotCarriedError).
	ErrProgressNotCarried = errors.New("cluster: progress is not carried between members")
	// ErrBacklogged: a message to another member was not sent because
	// that member's backlog is at Config.MaxOutboundBytes (see
	// BackloggedError).
	ErrBacklogged = errors.New("cluster: member backlogged")
)

// ProgressNotCarriedError refuses an Exposed.StartToolTask whose
// options set OnProgress. A task's progress token stays valid for the
// task's whole life, past the start's response
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks),
// while the hop carries a request's progress only until its response
// (progress.go): the start is refused before it is sent rather than run
// with the task's later progress silently dropped. CallToolWith carries
// OnProgress. It matches ErrProgressNotCarried.
type ProgressNotCarriedError struct {
	Tool   string // the exposed name called
	Member string // the calling member
}

func (e *ProgressNotCarriedError) Error() string {
	return fmt.Sprintf("cluster: tools/call %s as a task: member %s: CallOptions.OnProgress is set, but a task's progress is not carried between members", e.Tool, e.Member)
}

func (e *ProgressNotCarriedError) Is(target error) bool { return target == ErrProgressNotCarried }

// EtcdUnavailableError ends a call that cannot be served safely because
// a member cannot reach etcd: the calling member (its view of owners and
// members can no longer be trusted, and its lease has lapsed), or the
// owner (its lease lapsed, so it stopped its servers and refuses calls
// until it has a lease again). It matches ErrEtcdUnavailable. A call ends
// with it as soon as the caller's own lease has lapsed, rather than at
// its deadline; while only the owner is cut off, the caller keeps routing
// (the identity moves once the owner's lease expires) and this is the
// error it ends with if its deadline comes first.
type EtcdUnavailableError struct {
	Identity Identity
	Method   string
	Member   string // the member that cannot reach etcd
	Reason   string // the last etcd error it saw
}

func (e *EtcdUnavailableError) Error() string {
	s := fmt.Sprintf("cluster: %s %s: member %s cannot reach etcd, so ownership cannot be checked", e.Identity, e.Method, e.Member)
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	return s
}

func (e *EtcdUnavailableError) Is(target error) bool { return target == ErrEtcdUnavailable }

// MemberLostError ends a call whose owner left the cluster: membership
// (etcd) dropped it, or the connection to it broke. It matches
// ErrMemberLost. The identity re-activates elsewhere on the next call.
type MemberLostError struct {
	Identity Identity
	Member   string
	Method   string
	Reason   string // "lease expired", "connection lost", ...
}

func (e *MemberLostError) Error() string {
	return fmt.Sprintf("cluster: %s %s: member %s lost (%s)", e.Identity, e.Method, e.Member, e.Reason)
}

func (e *MemberLostError) Is(target error) bool { return target == ErrMemberLost }

// NotOwnerError is the answer of a member that does not hold the
// identity's ownership key: another member does (Owner, when known), or
// this one lost it (its lease could not be renewed in time and it fenced
// itself). It matches ErrNotOwner.
type NotOwnerError struct {
	Identity Identity
	Member   string
	Method   string
	Owner    string // the current owner if known
	Reason   string
}

func (e *NotOwnerError) Error() string {
	s := fmt.Sprintf("cluster: %s %s: member %s is not the owner", e.Identity, e.Method, e.Member)
	switch e.Owner {
	case "":
	case e.Member:
		// etcd still names it: the key of an ownership it lost (under
		// a lease it could not renew) has not expired yet.
		s += " (etcd still names it, under a lease it lost)"
	default:
		s += " (" + e.Owner + " is)"
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

func (e *NotOwnerError) Is(target error) bool { return target == ErrNotOwner }

// UnknownServerError reports a server name that is not configured.
type UnknownServerError struct {
	Server, Member, Method string
}

func (e *UnknownServerError) Error() string {
	return fmt.Sprintf("cluster: %s: member %s: unknown server %q", e.Method, e.Member, e.Server)
}

func (e *UnknownServerError) Is(target error) bool { return target == ErrUnknownServer }

// RemoteError is an error the owner returned whose type is not one of
// the runtime's (those cross the hop as themselves: *mcpactor.Error,
// *mcpactor.RPCError, ...), carried back as text. It still matches, with
// errors.Is, every sentinel of the runtime (and context.Canceled,
// context.DeadlineExceeded) the owner's error matched.
type RemoteError struct {
	Identity Identity
	Member   string
	Method   string
	Kind     string // the owner-side error's Go type, for logs
	Message  string
	matches  []error
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("cluster: %s %s on member %s: %s", e.Identity, e.Method, e.Member, e.Message)
}

// Unwrap returns the sentinels the owner's error matched.
func (e *RemoteError) Unwrap() []error { return e.matches }
