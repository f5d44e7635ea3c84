package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

func TestWireRoundTrip(t *testing.T) {
	req := &request{
		ID: 7, ReplyAddr: "127.0.0.1:4000", ReplyID: actorName, From: "m1", Server: "files", Tenant: "alice@example.com",
		Method: methodCallTool, Timeout: -3 * time.Second, Name: "read", Args: []byte(`{"path":"a"}`), URI: "file:///a",
		PromptArgs: map[string]string{"a": "1", "": "empty key"}, Trace: map[string]string{"traceparent": "00-ab-cd-01"},
		Token: []byte("0123456789abcdef"), CallTimeout: 90 * time.Second, ResetOnProgress: true, MaxTotalTimeout: 5 * time.Minute,
		Meta: []byte(`{"trace":"x"}`), BusyRetryUnsafe: true, Progress: true,
	}
	tag, got, _, err := decode(encodeRequest(req))
	if err != nil || tag != tagRequest || !reflect.DeepEqual(got, req) {
		t.Fatalf("decode = %c %+v %v, want %+v", tag, got, err, req)
	}
	resp := &response{ID: 1 << 40, Member: "m2", Generation: 1234, Result: []byte(`{"content":[]}`), Token: []byte("fedcba9876543210"),
		Err: &wireError{Kind: kindHop, Hop: []byte(`{"t":"RPCError"}`), Message: "bad", Owner: "m3", Code: -32602, Data: []byte(`{"x":1}`), Method: "tools/call", State: "ready"}}
	tag, _, gotResp, err := decode(encodeResponse(resp))
	if err != nil || tag != tagResponse || !reflect.DeepEqual(gotResp, resp) {
		t.Fatalf("decode = %c %+v %v, want %+v", tag, gotResp, err, resp)
	}
	note := &response{ID: 9, Member: "m2", Token: []byte("fedcba9876543210"), Result: []byte(`{"progressToken":1,"progress":2}`)}
	if tag, _, gotResp, err = decode(encodeProgress(note)); err != nil || tag != tagProgress || !reflect.DeepEqual(gotResp, note) {
		t.Errorf("progress = %c %+v %v, want %+v", tag, gotResp, err, note)
	}
	if tag, _, gotResp, err = decode(encodeResponse(&response{})); err != nil || tag != tagResponse || !reflect.DeepEqual(gotResp, &response{}) {
		t.Errorf("empty response = %c %+v %v", tag, gotResp, err)
	}
	if tag, _, _, err := decode("not ours"); tag != 0 || err != nil {
		t.Errorf("decode(foreign) = %c, %v", tag, err)
	}
	// A truncated message is an error, never a panic or a partial request
	// served.
	b := encodeRequest(req).GetValue()
	for n := 2; n < len(b); n += 7 {
		if _, _, _, err := decode(wrapperspb.Bytes(b[:n])); err == nil {
			if _, got, _, _ := decode(wrapperspb.Bytes(b[:n])); reflect.DeepEqual(got, req) {
				t.Errorf("decode of %d of %d bytes gave the whole request", n, len(b))
			}
		}
	}
}

// The owner calls the tool with the arguments the caller sent, and with
// none (a nil any) when it sent none, however the hop decoded them.
func TestToolArgs(t *testing.T) {
	for _, args := range []json.RawMessage{nil, {}, json.RawMessage(`{"path":"a"}`)} {
		_, got, _, err := decode(encodeRequest(&request{Method: methodCallTool, Name: "read", Args: args}))
		if err != nil {
			t.Fatal(err)
		}
		v := got.toolArgs()
		if len(args) == 0 {
			if v != nil {
				t.Errorf("Args %q: toolArgs = %#v, want nil", args, v)
			}
		} else if raw, ok := v.(json.RawMessage); !ok || string(raw) != string(args) {
			t.Errorf("Args %q: toolArgs = %#v", args, v)
		}
	}
}

func TestWireErrors(t *testing.T) {
	id := Identity{Server: "files", Tenant: "bob"}
	cases := []struct {
		in   error
		want error
	}{
		{&NotOwnerError{Identity: id, Owner: "m2"}, ErrNotOwner},
		{&UnknownServerError{Server: "files"}, ErrUnknownServer},
		{ErrStopped, ErrMemberLost},
	}
	if got := (&wireError{Kind: kindFenced}).decode(id, "m1", methodCallTool); !errors.Is(got, ErrMemberLost) {
		t.Errorf("fenced came back as %v", got)
	}
	for _, c := range cases {
		if got := encodeError(c.in, "files.12", id).decode(id, "m1", methodCallTool); !errors.Is(got, c.want) {
			t.Errorf("%v came back as %v, want %v", c.in, got, c.want)
		}
	}
	var rpc *callerr.RPCError
	got := encodeError(&callerr.RPCError{Code: -32602, Message: "bad"}, "files.12", id).decode(id, "m1", methodCallTool)
	if !errors.As(got, &rpc) || rpc.Code != -32602 || rpc.Message != "bad" {
		t.Errorf("RPC error came back as %#v", got)
	}
	var unavailable *mcpactor.Error
	last := &callerr.RPCError{Code: -32000, Message: "handshake refused"}
	got = encodeError(fmt.Errorf("call: %w", callerr.NewUnavailable(&callerr.Error{Server: "files.12", State: "breaker open", Cause: last})), "files.12", id).decode(id, "m1", methodCallTool)
	if !(errors.As(got, &unavailable) && callerr.Unavailable(unavailable) == unavailable) || !errors.Is(got, mcpactor.ErrServerUnavailable) || unavailable.State != "breaker open" ||
		unavailable.Server != id.String() || unavailable.Cause == nil || !strings.Contains(unavailable.Cause.Error(), "handshake refused") {
		t.Errorf("unavailable came back as %#v", got)
	}
	var unknownTool *mcpactor.Error
	got = encodeError(fmt.Errorf("call: %w", callerr.NewUnknownTool(&callerr.Error{Tool: "rm_rf"})), "files.12", id).decode(id, "m1", methodCallTool)
	if !(errors.As(got, &unknownTool) && callerr.UnknownTool(unknownTool) == unknownTool) || unknownTool.Tool != "rm_rf" {
		t.Errorf("unknown tool came back as %#v", got)
	}
	var remote *RemoteError
	if got := encodeError(errors.New("boom"), "files.12", id).decode(id, "m1", methodCallTool); !errors.As(got, &remote) || remote.Member != "m1" {
		t.Errorf("other error came back as %#v", got)
	}
}

func TestIdentityKey(t *testing.T) {
	for _, id := range []Identity{{Server: "a"}, {Server: "a", Tenant: "x/y"}, {Server: "a b", Tenant: "%2F"}} {
		got, ok := parseIdentityKey(id.key())
		if !ok || got != id {
			t.Errorf("%+v -> %q -> %+v, %v", id, id.key(), got, ok)
		}
	}
	if (Identity{Server: "a", Tenant: "b/c"}).key() == (Identity{Server: "a/b", Tenant: "c"}).key() {
		t.Error("a tenant forges another identity's key")
	}
}

func TestClientName(t *testing.T) {
	if got := clientName(Identity{Server: "files"}, 12); got != "files.12" {
		t.Errorf("clientName = %q", got)
	}
	if got := clientName(Identity{Server: "files", Tenant: "alice@example.com"}, 3); len(got) != len("files.")+8+len(".3") {
		t.Errorf("clientName with a tenant = %q", got)
	}
}

// TestErrorsKeepTheirIdentity: every typed error of the runtime that can
// happen on the owner comes back as the same type with the same fields,
// matching the same sentinels, and naming the server by the identity,
// never by the owner manager's name of it.
func TestErrorsKeepTheirIdentity(t *testing.T) {
	id := Identity{Server: "files", Tenant: "bob"}
	const internal = "files.5f0c2a1b.12"
	stall := callerr.NewWriteStall(&callerr.Error{After: 3 * time.Second})
	cases := []struct {
		in       error
		target   any // a pointer to the type errors.As must find
		check    func(got any) bool
		matching []error
	}{
		{callerr.NewTimeout(&callerr.Error{Server: internal, Method: "tools/call", ID: messages.Int64ID(7), After: 1500 * time.Millisecond}), new(*callerr.Error),
			func(got any) bool {
				e := got.(*callerr.Error)
				return callerr.Timeout(e) == e && e.After == 1500*time.Millisecond && e.Method == "tools/call" && e.ID == messages.Int64ID(7)
			},
			[]error{mcpactor.ErrTimeout}},
		{callerr.NewArguments(&callerr.Error{Server: internal, Tool: "read", Got: "a JSON array"}), new(*callerr.Error),
			func(got any) bool {
				e := got.(*callerr.Error)
				return e.Tool == "read" && e.Got == "a JSON array"
			},
			[]error{mcpactor.ErrInvalidArguments}},
		{fmt.Errorf("call: %w", callerr.NewCanceled(&callerr.Error{Server: internal, Method: "tools/call", Cause: context.DeadlineExceeded})), new(*callerr.Error),
			func(got any) bool {
				e := got.(*callerr.Error)
				return callerr.Canceled(e) == e && e.Method == "tools/call"
			},
			[]error{context.DeadlineExceeded}},
		{callerr.NewTransportClosed(&callerr.Error{Server: internal, ExitStatus: "exit status 3", Cause: stall}), new(*callerr.Error),
			func(got any) bool {
				e := got.(*callerr.Error)
				return e.ExitStatus == "exit status 3" && callerr.WriteStalled(e) != nil
			},
			[]error{mcpactor.ErrTransportClosed}},
		{callerr.NewTransportClosed(&callerr.Error{Server: internal, Cause: callerr.NewReplaced(&callerr.Error{Server: internal, Generation: 1, Next: 2})}), new(*callerr.Error),
			func(got any) bool {
				r := callerr.Replaced(got.(error))
				return r != nil && r.Next == 2
			},
			[]error{mcpactor.ErrTransportClosed}},
		{callerr.NewConnectTimeout(&callerr.Error{Server: internal, After: 2 * time.Second}), new(*callerr.Error),
			func(got any) bool {
				e := got.(*callerr.Error)
				return callerr.ConnectTimeout(e) == e && e.After == 2*time.Second
			},
			[]error{mcpactor.ErrTimeout}},
		{callerr.NewSessionExpired(&callerr.Error{Server: internal, Method: "tools/call", Status: 404, SessionID: "s1"}), new(*callerr.Error),
			func(got any) bool {
				e := got.(*callerr.Error)
				return callerr.SessionExpired(e) == e && e.Status == 404 && e.SessionID == "s1"
			},
			[]error{mcpactor.ErrHTTP}},
		{callerr.NewFallback(&callerr.Error{Server: internal, URL: "http://h/mcp"},
			callerr.NewHTTPStatus(&callerr.Error{Server: internal, Status: 404, URL: "http://h/sse"}),
			callerr.NewHTTPStatus(&callerr.Error{Server: internal, Status: 405, URL: "http://h/mcp", RPC: &messages.Error{Code: -32601, Message: "no"}})), new(*callerr.Error),
			func(got any) bool {
				e := got.(*callerr.Error)
				both, ok := e.Cause.(interface{ Unwrap() []error })
				return callerr.Fallback(e) == e && ok && len(both.Unwrap()) == 2 && callerr.HTTPStatus(both.Unwrap()[1]).RPC.Code == -32601
			},
			[]error{mcpactor.ErrHTTP}},
		{&callerr.RPCError{Server: internal, Method: "tools/call", Code: -32602, Message: "unknown tool in " + internal, Data: []byte(`{"a":1}`)}, new(*callerr.RPCError),
			func(got any) bool {
				e := got.(*callerr.RPCError)
				return e.Code == -32602 && string(e.Data) == `{"a":1}`
			},
			[]error{mcpactor.ErrRPC}},
		{fmt.Errorf("manager: %w", callerr.NewUnavailable(&callerr.Error{Server: internal, State: "breaker open", Cause: stall})), new(*callerr.Error),
			func(got any) bool {
				e := got.(*callerr.Error)
				return callerr.Unavailable(e) == e && e.State == "breaker open"
			},
			[]error{mcpactor.ErrServerUnavailable, mcpactor.ErrTransportClosed}},
		{callerr.NewUnknownTool(&callerr.Error{Tool: "rm_rf"}), new(*callerr.Error),
			func(got any) bool { e := got.(*callerr.Error); return callerr.UnknownTool(e) == e && e.Tool == "rm_rf" }, []error{mcpactor.ErrNotFound}},
		{fmt.Errorf("value: %w", mcpactor.ErrConfig), new(*RemoteError),
			func(got any) bool { return true }, []error{mcpactor.ErrConfig}},
		{fmt.Errorf("wrapped text: %w", mcpactor.ErrUnsupported), new(*RemoteError),
			func(got any) bool { return strings.Contains(got.(*RemoteError).Message, "wrapped text") },
			[]error{mcpactor.ErrUnsupported}},
	}
	for _, c := range cases {
		got := encodeError(c.in, internal, id).decode(id, "m1", methodCallTool)
		if !errors.As(got, c.target) {
			t.Errorf("%v came back as %#v, not %T", c.in, got, c.target)
			continue
		}
		typed := reflect.ValueOf(c.target).Elem().Interface()
		if !c.check(typed) {
			t.Errorf("%v came back with other fields: %#v", c.in, typed)
		}
		for _, s := range c.matching {
			if !errors.Is(got, s) {
				t.Errorf("%v came back as %v, which does not match %v", c.in, got, s)
			}
		}
		// The typed error reads as it did on the owner (what wrapped it
		// there does not cross).
		if sent := reflect.New(reflect.TypeOf(typed)); errors.As(c.in, sent.Interface()) {
			want := strings.ReplaceAll(sent.Elem().Interface().(error).Error(), internal, id.String())
			if text := typed.(error).Error(); text != want {
				t.Errorf("%v came back reading %q, want %q", c.in, text, want)
			}
		}
		if strings.Contains(got.Error(), internal) || strings.Contains(fmt.Sprintf("%+v", typed), internal) {
			t.Errorf("%v came back naming the manager's name: %v / %+v", c.in, got, typed)
		}
		if f := reflect.ValueOf(typed).Elem().FieldByName("Server"); f.IsValid() && f.String() != id.String() && !errors.Is(got, mcpactor.ErrNotFound) {
			t.Errorf("%v came back with Server %q, want %q", c.in, f.String(), id.String())
		}
	}
}

// TestProgressQueue: a call's queued progress stays within
// maxCallProgressBytes by dropping the oldest (one larger than the bound
// is kept alone), a notification that does not come from the call's
// member with its token is refused, and one for a call that has ended is
// dropped and counted.
func TestProgressQueue(t *testing.T) {
	var counts counters
	var p pendingCalls
	p.init()
	call := &pendingCall{member: "m2", progress: newProgressQueue()}
	id := p.add(call)
	note := func(i, size int) []byte {
		return fmt.Appendf(nil, `{"progressToken":1,"progress":%d,"message":%q}`, i, strings.Repeat("x", size))
	}
	const size = 100 << 10
	for i := 1; i <= 30; i++ {
		if !p.progress(&response{ID: id, Member: "m2", Token: call.token[:], Result: note(i, size)}, &counts) {
			t.Fatalf("progress %d refused", i)
		}
	}
	items := takeAll(call.progress)
	total := 0
	for _, b := range items {
		total += len(b)
	}
	dropped := counts.droppedProgress.Load()
	if total > maxCallProgressBytes || len(items)+int(dropped) != 30 || dropped == 0 {
		t.Errorf("queued %d notifications (%d bytes), dropped %d, of 30; bound %d", len(items), total, dropped, maxCallProgressBytes)
	}
	if len(items) == 0 || !strings.Contains(string(items[len(items)-1]), `"progress":30,`) || !strings.Contains(string(items[0]), fmt.Sprintf(`"progress":%d,`, dropped+1)) {
		t.Errorf("kept %d notifications, not the newest in order", len(items))
	}
	big := note(31, maxCallProgressBytes)
	p.progress(&response{ID: id, Member: "m2", Token: call.token[:], Result: big}, &counts)
	if items := takeAll(call.progress); len(items) != 1 || len(items[0]) != len(big) {
		t.Errorf("a notification above the bound: %d queued, want it alone", len(items))
	}

	// Forged: another member, or no token. Not queued, not counted as dropped.
	before := counts.droppedProgress.Load()
	for _, r := range []*response{{ID: id, Member: "m3", Token: call.token[:]}, {ID: id, Member: "m2"}} {
		if p.progress(r, &counts) {
			t.Errorf("progress from %q with token %x accepted", r.Member, r.Token)
		}
	}
	if items := takeAll(call.progress); len(items) != 0 || counts.droppedProgress.Load() != before {
		t.Errorf("forged progress queued (%d) or counted", len(items))
	}

	// After the response: dropped and counted.
	if !p.deliver(&response{ID: id, Member: "m2", Token: call.token[:]}) {
		t.Fatal("response refused")
	}
	if !p.progress(&response{ID: id, Member: "m2", Token: call.token[:], Result: note(32, 0)}, &counts) ||
		counts.droppedProgress.Load() != before+1 || len(takeAll(call.progress)) != 0 {
		t.Errorf("late progress: dropped %d (want %d)", counts.droppedProgress.Load(), before+1)
	}
}

func takeAll(q *progressQueue) []json.RawMessage {
	var out []json.RawMessage
	for {
		p, ok := q.pop()
		if !ok {
			return out
		}
		out = append(out, p)
	}
}
