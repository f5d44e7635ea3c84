// Package cluster runs mcpactor on a fleet of processes: each server
// session lives on exactly one member, and any member calls any server by
// the same names as on one machine (CallTool, ListTools, ReadResource,
// GetPrompt, ...). It is opt-in: it links gRPC and the etcd client, which
// the root package does not. docs/cluster.md in the repository has the
// design and the operations guide.
//
// Member.Exposed (and Tenant.Exposed) offer the calling convention of
// mcpactor.Manager: ListTools, CallTool and CallToolWith by exposed name
// (mcp__<server>__<tool>, named as the Manager names them) and Status
// by server, with the Manager's types, so that code written against a
// Manager switches to a cluster by changing its construction
// (Example_managerAPI). CallOptions cross the hop, OnProgress included:
// the owner sends the call's progress notifications back, and the caller
// hands them to OnProgress before the result. (StartToolTask refuses
// OnProgress with *ProgressNotCarriedError: a task's progress outlives
// its start.)
//
// Tasks cross members too (tasks.go): Exposed.StartToolTask returns a
// TaskRef (server, tenant, task id) that encodes as JSON, and any member
// polls, awaits or cancels the task by it, on the identity's owner of the
// moment; a wait that loses the owner goes on with the next one, which
// asks the same server.
//
// # Identities and ownership
//
// A session is an Identity: a server name and, for per-user sessions (a
// user's OAuth'd connection, a browser, a transaction), a tenant. Each
// identity has at most one owner, enforced by etcd rather than hoped for:
//
//   - Every member holds an etcd lease of Config.LeaseTTL; its member key
//     and every ownership key it takes are bound to it.
//   - An activation first creates the identity's ownership key in a
//     transaction that succeeds only if the key does not exist; only then
//     does it add the server to the member's manager, which starts the
//     server process or opens the HTTP session. The key's create revision
//     is the activation's fencing token (Placement.Generation): each new
//     activation has a larger one. A restart by the manager while the
//     member holds the key is the same ownership, hence the same
//     generation (SessionInfo.Connection counts the connections).
//   - A member that cannot renew its lease (paused, partitioned from
//     etcd) stops its activations TTL/3 before the lease can expire, so
//     that their servers are gone before anyone else may take over; every
//     call checks the lease is still safe first, and refuses with
//     *NotOwnerError otherwise; and each write to an owned server checks
//     it again (ServerConfig.Fence), on a clock that counts a stopped
//     process and a suspended machine, so that nothing queued before a
//     pause is written after the lease lapsed. A fenced member joins again with a new
//     lease (it neither lingers half-removed nor stops for good).
//
// # Supervision of owned servers
//
// Each member runs one mcpactor.Manager for the identities it owns,
// started empty: an activation takes the key, then Manager.Add's the
// server under a name unique to the identity and generation and waits
// until it is ready (a first connection that fails fails the activation
// and releases the key); deactivation is Manager.Remove, the server
// killed within TTL/6, then the key released. Calls, after the lease
// check, go through the manager (tools/call by the name it offers the
// tool under), so that a server that exits or whose calls keep failing in
// the transport is restarted on the same member with the restart policy
// of its ServerConfig (backoff, then the circuit breaker), keepalive
// pings apply, and a call to a server whose breaker is open fails at once
// with an ErrServerUnavailable *mcpactor.Error, carried across the hop.
// Member.Status lists the owned identities with the manager's status.
// Config.Supervision tunes the manager.
//
// # Routing: protoactor remote to the owner etcd names, not cluster grains
//
// Requests travel over protoactor's remote layer to the actor of the
// owning member, whose address the owner records beside its ownership key.
// protoactor's cluster package (grains) is not used: at the pinned version
// its placement is a consistent hash over its own membership view with no
// check by the owner that it owns the identity, so a member that was
// paused and resumed serves identities that have moved (two live owners,
// protoactor-go #1133), a moved grain starts empty, a lookup to a dead
// owner waits a hard-coded 5 s, and its retries back off for nanoseconds.
// Fixing that would mean patching its placement; etcd already is the
// authority we need, so members route by it instead: a member's view of
// etcd (members, owners, the shared tool cache; kept by a watch) gives the
// owner with no round trip, and an identity nobody owns is sent to the
// member rendezvous hashing prefers, which takes the key or names who won
// it.
//
// # Failover
//
// When etcd drops a member (its lease expired: killed, paused, cut off),
// or the connection to it breaks, every call in flight to it ends at once
// with *MemberLostError (errors.Is ErrMemberLost), never a bare deadline.
// A tools/call is not retried (it may have run); lists and reads are. The
// next call activates the identity on a live member as a new generation:
// its server is started again (OAuth tokens come from the runtime's token
// store for the identity); tool lists stay offered from the shared cache
// meanwhile. A lost member's servers answer again about one lease TTL
// after it stopped renewing.
//
// # The remote layer
//
// protoactor's remote is used unpatched and hardened from outside (see
// remote.go): only its message stream is served (the other methods panic
// the pinned version), every message is checked before protoactor reads
// it and the stream runs under a recover (inbound.go: no input on the
// wire can panic a member), a shared secret and TLS or mutual TLS are
// configurable, gRPC's message limits are above the runtime's 16 MiB frame
// cap, gRPC's process-wide logger is restored after protoactor silences
// it, and retries back off for real.
//
// Members exchange google.protobuf.BytesValue messages holding their
// fields in protobuf's wire format, written by hand around the MCP
// payloads (JSON, carried as bytes: never encoded twice), and carry the
// caller's trace context, so that the owner's spans join the caller's
// trace. A member receives them in an inbox on the remote layer's reader
// goroutine (no actor mailbox) and serves requests on workers kept
// between requests (inbox.go).
package cluster
