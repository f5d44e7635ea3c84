// Package refclient holds the two reference clients the MCP client runtime
// is measured against over stdio. They depend on the standard library only,
// on purpose: they share no code with the runtime, so that a fault or a
// cost in it cannot hide in its yardstick.
//
// Both start the server from an *exec.Cmd (Stdin and Stdout must be nil:
// they become the client's pipes; Stderr is left as the caller set it, nil
// meaning the null device, so a benchmark does not pay for a copying
// goroutine unless it asks to see the server's log), speak newline-delimited
// JSON-RPC 2.0 on its stdin and stdout, do the session handshake (initialize
// with protocolVersion 2025-11-25, then notifications/initialized) before
// any of their goroutines runs (with Options.Stateless, the 2026-07-28
// revision instead: server/discover, and the version, capabilities and
// client identity in every request's _meta), and on Close close stdin, wait for the
// process (killing it when the ctx given to Close ends first) and leave no
// goroutine behind.
//
// Both read answers by scanning bytes for the few fields they need (id,
// method, result.content[0].type and text, result.isError, error.code and
// message) in one pass, never decoding a whole message; they find lines in
// their own buffer (messages up to MaxLine bytes); they skip the server's
// notifications and answer its requests with the JSON-RPC error -32601
// (the clients declare no capabilities, so no method a server may ask of
// them is one they have); and one writer goroutine writes whatever
// requests are queued with one write system call, so a server that is slow
// to read holds up only that goroutine.
//
// # Blocking: the limit of a blocking API
//
// Blocking is the same framing behind a blocking Call, as an API shaped
// like the runtime's must be: one goroutine per caller, one reusable reply
// channel per caller (pooled slots), a per-call timeout, and doing the
// least a correct client must: find the id, tell a result from an error
// and isError, hand the caller the result's text. It is the best an API of
// that shape can do. Correlation is a mutex-guarded map from id to slot;
// a late answer to a call that timed out finds no slot and is dropped, and
// a slot goes back to the pool only once no answer can reach it.
//
// It deliberately does not: validate answers beyond those fields, keep a
// session alive (no ping, no reconnection, no restart of a dead server: a
// dead server fails every pending and later call), cancel calls on the
// server (no notifications/cancelled on timeout: the answer is just
// dropped), list or cache tools, speak any transport but stdio or
// anything of the 2026-07-28 revision beyond its per-request _meta, trace, log, or limit how many calls
// are in flight.
//
// # EventLoop: the limit of any client on a server
//
// EventLoop is one writer and one reader goroutine and no goroutine per
// call: it keeps a number of calls in flight itself, each answer sending
// the next request from the reader, the requests triggered by one read of
// the server's output written together; ids are found by scanning bytes,
// answers checked by comparing the bytes of the text as they are on the
// wire with the expected ones (no unescaping, no allocation per call). It
// is the physical limit of a client on the server it talks to.
//
// It deliberately does not offer an API: no caller waits for anything, no
// result is handed to anyone, no timeout applies to a single call (a run
// is bounded by its ctx and by the server's going away); and like
// Blocking it does not validate beyond the fields it reads, cancel, ping,
// list tools or restart the server.
package refclient
