package main

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// The operations a caller makes.
const (
	opEcho     uint8 = iota // a small answer: the isolation check's latency
	opSleep                 // a slow answer (100-800 ms)
	opBig                   // a 1 MiB answer
	opProgress              // progress notifications, then the answer
	opAsk                   // a server-to-client request (sampling, roots, elicitation) answered by a handler
	opFail                  // a tool error
	opRead                  // resources/read
	opList                  // tools/list, asked of the server
	opCancel                // a slow call the caller cancels
	opTimeout               // a slow call with a per-call timeout shorter than it
	opFault                 // a call the fault injector makes (stop-reading, send-raw, notify-flood, ...)
	nOps
)

var opNames = [nOps]string{"echo", "sleep", "big (1 MiB)", "progress", "server-to-client", "tool error", "resource read", "tools/list", "cancelled by caller", "per-call timeout", "fault injection"}

// opWeights are each kind's mix of operations: mostly slow answers
// (which keep the callers' calls in flight at little CPU) and small ones
// (the isolation check's), a little of everything else. The kinds without
// a slow tool time out and cancel their progress tools.
var opWeights = map[string][nOps]int{
	kTest:           {opEcho: 25, opSleep: 45, opBig: 1, opProgress: 6, opAsk: 5, opFail: 3, opRead: 5, opList: 3, opCancel: 6, opTimeout: 6},
	kFast:           {opEcho: 30, opSleep: 55, opBig: 3, opList: 4, opCancel: 8, opTimeout: 8},
	kGoSDK:          {opEcho: 40, opProgress: 12, opAsk: 8, opFail: 8, opRead: 14, opList: 8, opCancel: 5, opTimeout: 5},
	kEverything:     {opEcho: 30, opSleep: 35, opProgress: 8, opAsk: 6, opRead: 10, opList: 6, opCancel: 5, opTimeout: 5},
	kFragile:        {},
	kTestHTTP:       {},
	kGoSDKHTTP:      {},
	kEverythingHTTP: {},
	kEverythingSSE:  {},
}

func init() {
	opWeights[kFragile] = opWeights[kTest]
	opWeights[kTestHTTP] = opWeights[kTest]
	opWeights[kGoSDKHTTP] = opWeights[kGoSDK]
	opWeights[kEverythingHTTP] = opWeights[kEverything]
	opWeights[kEverythingSSE] = opWeights[kEverything]
}

// pickOp draws an operation for a kind.
func pickOp(kind string, rng *rand.Rand) uint8 {
	w := opWeights[kind]
	total := 0
	for _, x := range w {
		total += x
	}
	n := rng.IntN(total)
	for i, x := range w {
		if n < x {
			return uint8(i)
		}
		n -= x
	}
	return opEcho
}

// opCall is what an operation asks: a tool and its arguments, or (tool
// "") a read or a list; with its per-call options.
type opCall struct {
	tool     string
	args     json.RawMessage
	timeout  time.Duration
	cancelIn time.Duration // cancel the call's context after this long
	progress bool
}

// Prebuilt arguments: the runtime encodes them as they are.
var (
	argsEcho     = json.RawMessage(`{"message":"soak"}`)
	argsEmpty    = json.RawMessage(`{}`)
	argsBig      = json.RawMessage(`{"bytes":1048576}`)
	argsSlow     = json.RawMessage(`{"ms":2000}`)
	argsProgress = json.RawMessage(`{"steps":3,"intervalMs":30}`)
	argsFail     = json.RawMessage(`{"message":"soak tool error"}`)
	argsLongOp   = json.RawMessage(`{"duration":1,"steps":4}`)
	argsSlowOp   = json.RawMessage(`{"duration":3,"steps":3}`)
	argsPrompt   = json.RawMessage(`{"prompt":"soak","maxTokens":10}`)
	argsAsk      = []json.RawMessage{
		json.RawMessage(`{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"soak"}}],"maxTokens":10}}`),
		json.RawMessage(`{"method":"roots/list"}`),
		json.RawMessage(`{"method":"elicitation/create","params":{"message":"soak?","requestedSchema":{"type":"object","properties":{"x":{"type":"string"}}}}}`),
	}
)

// opTimeoutShort is the per-call timeout of opTimeout, well under the
// slow tool it calls; every other call's is opTimeoutNormal.
const (
	opTimeoutShort  = 150 * time.Millisecond
	opTimeoutNormal = 5 * time.Second
)

// buildOp says what operation op is on a server of kind; slow is the
// mean of the slow answers.
func buildOp(kind string, op uint8, slow time.Duration, rng *rand.Rand) opCall {
	c := opCall{timeout: opTimeoutNormal}
	family := kind
	switch kind {
	case kFragile, kTestHTTP:
		family = kTest
	case kGoSDKHTTP:
		family = kGoSDK
	case kEverythingHTTP, kEverythingSSE:
		family = kEverything
	}
	switch family {
	case kTest, kFast:
		switch op {
		case opEcho:
			c.tool, c.args = "echo", argsEcho
		case opSleep:
			d := time.Duration((0.25 + 1.5*rng.Float64()) * float64(slow))
			c.tool, c.args = "sleep", json.RawMessage(`{"ms":`+strconv.FormatInt(d.Milliseconds(), 10)+`}`)
			c.timeout = d + opTimeoutNormal
		case opBig:
			c.tool, c.args = "big", argsBig
		case opProgress:
			c.tool, c.args, c.progress = "progress", argsProgress, true
		case opAsk:
			c.tool, c.args = "ask-client", argsAsk[rng.IntN(len(argsAsk))]
		case opFail:
			c.tool, c.args = "fail", argsFail
		case opCancel:
			c.tool, c.args, c.cancelIn = "sleep", argsSlow, time.Duration(50+rng.IntN(250))*time.Millisecond
		case opTimeout:
			c.tool, c.args, c.timeout = "sleep", argsSlow, opTimeoutShort
		}
	case kGoSDK:
		switch op {
		case opEcho:
			c.tool, c.args = "test_simple_text", argsEmpty
		case opProgress:
			c.tool, c.args, c.progress = "test_tool_with_progress", argsEmpty, true
		case opAsk:
			c.tool, c.args = "test_sampling", argsPrompt
		case opFail:
			c.tool, c.args = "test_error_handling", argsEmpty
		case opCancel:
			// The progress tool takes 150 ms.
			c.tool, c.args, c.cancelIn = "test_tool_with_progress", argsEmpty, time.Duration(20+rng.IntN(80))*time.Millisecond
		case opTimeout:
			c.tool, c.args, c.timeout = "test_tool_with_progress", argsEmpty, 60*time.Millisecond
		}
	case kEverything:
		switch op {
		case opEcho:
			c.tool, c.args = "echo", argsEcho
		case opSleep:
			// A long operation without a progress token: slow, quiet.
			secs := max(1, int((0.25+1.5*rng.Float64())*slow.Seconds()))
			c.tool, c.args = "trigger-long-running-operation", json.RawMessage(`{"duration":`+strconv.Itoa(secs)+`,"steps":`+strconv.Itoa(secs)+`}`)
			c.timeout = time.Duration(secs)*time.Second + opTimeoutNormal
		case opProgress:
			c.tool, c.args, c.progress = "trigger-long-running-operation", argsLongOp, true
		case opAsk:
			c.tool, c.args = "trigger-sampling-request", argsPrompt
		case opCancel:
			c.tool, c.args, c.cancelIn = "trigger-long-running-operation", argsSlowOp, time.Duration(100+rng.IntN(400))*time.Millisecond
		case opTimeout:
			c.tool, c.args, c.timeout = "trigger-long-running-operation", argsSlowOp, 300*time.Millisecond
		}
	}
	return c
}

// perform makes the call on the manager (or, for reads and lists, on the
// server's client): the caller's path.
func perform(ctx context.Context, m *mcpactor.Manager, s *server, op uint8, c opCall, late *atomic.Int32, done *atomic.Bool) (*messages.CallToolResult, error) {
	switch op {
	case opRead:
		_, err := m.ReadResource(ctx, s.name, s.uri)
		return nil, err
	case opList:
		cl, ok := m.Client(s.name)
		if !ok {
			return nil, &mcpactor.Error{Kind: mcpactor.ErrNotFound, Server: s.name}
		}
		_, err := cl.ListTools(ctx)
		return nil, err
	}
	if c.cancelIn > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		t := time.AfterFunc(c.cancelIn, cancel)
		defer t.Stop()
		defer cancel()
	}
	opts := mcpactor.CallOptions{Timeout: c.timeout}
	if c.progress {
		opts.OnProgress = func(messages.ProgressParams) {
			if done.Load() {
				late.Add(1)
			}
		}
	}
	return m.CallToolWith(ctx, s.exposed(c.tool), c.args, opts)
}
