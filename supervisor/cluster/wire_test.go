package cluster

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

func TestWireRoundTrip(t *testing.T) {
	req := &request{ID: 7, Server: "files", Tenant: "alice@example.com", Method: methodCallTool, Name: "read", Args: []byte(`{"path":"a"}`)}
	msg, err := encode(tagRequest, req)
	if err != nil {
		t.Fatal(err)
	}
	tag, got, _, err := decode(msg)
	if err != nil || tag != tagRequest || got.ID != 7 || got.identity() != req.identity() || string(got.Args) != `{"path":"a"}` {
		t.Fatalf("decode = %c %+v %v", tag, got, err)
	}
	if tag, _, _, err := decode("not ours"); tag != 0 || err != nil {
		t.Errorf("decode(foreign) = %c, %v", tag, err)
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
		if got := encodeError(c.in).decode(id, "m1", methodCallTool); !errors.Is(got, c.want) {
			t.Errorf("%v came back as %v, want %v", c.in, got, c.want)
		}
	}
	var rpc *messages.RPCError
	got := encodeError(&messages.RPCError{Code: -32602, Message: "bad"}).decode(id, "m1", methodCallTool)
	if !errors.As(got, &rpc) || rpc.Code != -32602 || rpc.Message != "bad" {
		t.Errorf("RPC error came back as %#v", got)
	}
	var unavailable *mcpactor.ServerUnavailableError
	last := &messages.RPCError{Code: -32000, Message: "handshake refused"}
	got = encodeError(fmt.Errorf("call: %w", &mcpactor.ServerUnavailableError{Server: "files.12", State: "breaker open", Err: last})).decode(id, "m1", methodCallTool)
	if !errors.As(got, &unavailable) || !errors.Is(got, mcpactor.ErrServerUnavailable) || unavailable.State != "breaker open" ||
		unavailable.Server != id.String() || unavailable.Err == nil || !strings.Contains(unavailable.Err.Error(), "handshake refused") {
		t.Errorf("unavailable came back as %#v", got)
	}
	var remote *RemoteError
	if got := encodeError(errors.New("boom")).decode(id, "m1", methodCallTool); !errors.As(got, &remote) || remote.Member != "m1" {
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
