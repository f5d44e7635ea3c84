package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// The messages between members. protoactor's remote carries protobuf
// messages only, looked up by name in the global registry; rather than
// generating protobuf code for two shapes, each message is a
// google.protobuf.BytesValue holding a tag byte and the message's fields
// in protobuf's wire format, written and read by hand (protowire): no
// reflection, and the MCP payloads (arguments, results), which are JSON
// already, are carried as bytes, never converted. The tags are not the
// 'q' and 'r' of the JSON messages of earlier versions, so that a member
// of such a version drops these (and logs it) rather than misreads them.
const (
	tagRequest  = 'Q'
	tagResponse = 'R'
	// tagProgress is a progress notification of a tools/call in flight,
	// from its owner to its caller: a response's header (ID, Member,
	// Token) with the notification's params in Result, sent before the
	// call's response, over the same connection (progress.go).
	tagProgress = 'P'
)

// Methods a request may name: the MCP method it runs on the owner
// (https://modelcontextprotocol.io/specification/2025-11-25/server), or
// methodInfo for the session's description.
const (
	methodCallTool      = "tools/call"
	methodListTools     = "tools/list"
	methodListResources = "resources/list"
	methodReadResource  = "resources/read"
	methodListPrompts   = "prompts/list"
	methodGetPrompt     = "prompts/get"
	methodInfo          = "cluster/info"
	// The task methods (tasks.go): a tools/call that may make a task,
	// tasks/get, tasks/cancel and tasks/list on the server, and one
	// round of a wait for a task's end, run by the owner's manager.
	methodStartTask  = "cluster/tasks/start"
	methodGetTask    = "tasks/get"
	methodCancelTask = "tasks/cancel"
	methodListTasks  = "tasks/list"
	methodAwaitTask  = "cluster/tasks/await"
)

// request asks the owner of an identity to run one method. The numbers
// are the fields' numbers on the wire.
type request struct {
	ID        uint64 // 1
	ReplyAddr string // 2: the caller's inbox
	ReplyID   string // 3
	From      string // 4: the caller's member name
	Server    string // 5
	Tenant    string // 6
	Method    string // 7
	// Timeout is what is left of the caller's deadline: a duration, not a
	// time, so that members' clocks need not agree.
	Timeout    time.Duration     // 8
	Name       string            // 9: tool, prompt, or task id
	Args       json.RawMessage   // 10
	URI        string            // 11
	PromptArgs map[string]string // 12: entries of key 1, value 2
	// Trace carries the caller's trace context (W3C traceparent and
	// tracestate) so that the owner's spans join the caller's trace.
	Trace map[string]string // 13: entries of key 1, value 2
	// Token is the request's secret (tokenSize random bytes), sent only
	// to the member the request is for: its response must carry it back,
	// so that no other peer can answer in its place.
	Token []byte // 14
	// The options of a tools/call (mcpactor.CallOptions; OnProgress
	// stays with the caller, Progress below asks for what it needs):
	// the owner applies them to its own call of the server.
	CallTimeout     time.Duration   // 15
	ResetOnProgress bool            // 16
	MaxTotalTimeout time.Duration   // 17
	Meta            json.RawMessage // 18: params._meta as JSON
	BusyRetryUnsafe bool            // 19
	ValidateOutput  bool            // 20
	// Progress asks the owner to send the call's progress notifications
	// back (tagProgress): the caller set OnProgress or
	// ResetTimeoutOnProgress (progress.go).
	Progress bool // 21

	// Not on the wire: the caller's own, for its wait (progress.go).
	onProgress   func(messages.ProgressParams) // nil: progress is not handed to the caller
	progressIdle time.Duration                 // > 0: the caller's wait between two progress notifications
}

func (r *request) identity() Identity { return Identity{Server: r.Server, Tenant: r.Tenant} }

// toolArgs are the tools/call's arguments as the caller gave them, and a
// nil any when it gave none: an empty json.RawMessage in an any is not
// nil, and would reach the server as arguments it was never sent.
func (r *request) toolArgs() any {
	if len(r.Args) == 0 {
		return nil
	}
	return r.Args
}

// callOptions are the tools/call's options as the caller set them; a
// negative duration (no caller sends one) counts as unset.
func (r *request) callOptions() (mcpactor.CallOptions, error) {
	o := mcpactor.CallOptions{Timeout: max(r.CallTimeout, 0), ResetTimeoutOnProgress: r.ResetOnProgress,
		MaxTotalTimeout: max(r.MaxTotalTimeout, 0), BusyRetryUnsafe: r.BusyRetryUnsafe, ValidateOutput: r.ValidateOutput}
	if len(r.Meta) > 0 {
		if err := json.Unmarshal(r.Meta, &o.Meta); err != nil {
			return o, fmt.Errorf("cluster: %s tools/call %s: decode _meta: %w", r.identity(), r.Name, err)
		}
	}
	return o, nil
}

// response answers one request.
type response struct {
	ID         uint64          // 1
	Member     string          // 2: who answered
	Generation int64           // 3: the owner's fencing revision
	Result     json.RawMessage // 4
	Err        *wireError      // 5
	Token      []byte          // 6: the request's Token
}

// wireError is an error crossing the hop. Kinds with a type of their own
// are rebuilt as that type (decodeError); the rest become *RemoteError.
type wireError struct {
	Kind    string          // 1
	Message string          // 2
	Owner   string          // 3
	Code    int64           // 4
	Data    json.RawMessage // 5
	Method  string          // 6
	State   string          // 7: kindUnavailable, the server's state
	Hop     json.RawMessage // 8: kindHop, the error as a hopError
}

const (
	kindNotOwner      = "not-owner"
	kindUnknownServer = "unknown-server"
	kindStopped       = "stopped"
	kindFenced        = "fenced"
	kindDeadline      = "deadline"
	kindCallbackPanic = "callback-panic"
	kindHop           = "hop"
	kindEtcd          = "etcd-unavailable"
	kindLimit         = "too-many-activations"
)

// encodeRequest is r's message.
func encodeRequest(r *request) *wrapperspb.BytesValue {
	n := 64 + len(r.ReplyAddr) + len(r.ReplyID) + len(r.From) + len(r.Server) + len(r.Tenant) +
		len(r.Method) + len(r.Name) + len(r.Args) + len(r.URI) + mapSize(r.PromptArgs) + mapSize(r.Trace) + len(r.Token) + len(r.Meta)
	b := make([]byte, 1, n)
	b[0] = tagRequest
	b = appendVarint(b, 1, r.ID)
	b = appendString(b, 2, r.ReplyAddr)
	b = appendString(b, 3, r.ReplyID)
	b = appendString(b, 4, r.From)
	b = appendString(b, 5, r.Server)
	b = appendString(b, 6, r.Tenant)
	b = appendString(b, 7, r.Method)
	b = appendVarint(b, 8, protowire.EncodeZigZag(int64(r.Timeout)))
	b = appendString(b, 9, r.Name)
	b = appendBytes(b, 10, r.Args)
	b = appendString(b, 11, r.URI)
	b = appendMap(b, 12, r.PromptArgs)
	b = appendMap(b, 13, r.Trace)
	b = appendBytes(b, 14, r.Token)
	b = appendVarint(b, 15, protowire.EncodeZigZag(int64(r.CallTimeout)))
	b = appendVarint(b, 16, protowire.EncodeBool(r.ResetOnProgress))
	b = appendVarint(b, 17, protowire.EncodeZigZag(int64(r.MaxTotalTimeout)))
	b = appendBytes(b, 18, r.Meta)
	b = appendVarint(b, 19, protowire.EncodeBool(r.BusyRetryUnsafe))
	b = appendVarint(b, 20, protowire.EncodeBool(r.ValidateOutput))
	b = appendVarint(b, 21, protowire.EncodeBool(r.Progress))
	return wrapperspb.Bytes(b)
}

// encodeResponse is r's message.
func encodeResponse(r *response) *wrapperspb.BytesValue {
	return wrapperspb.Bytes(appendResponse(tagResponse, r))
}

// encodeProgress is the message of one progress notification (its
// params) of the call r's header names.
func encodeProgress(r *response) *wrapperspb.BytesValue {
	return wrapperspb.Bytes(appendResponse(tagProgress, r))
}

func appendResponse(tag byte, r *response) []byte {
	b := make([]byte, 1, 32+len(r.Member)+len(r.Result)+r.Err.size()+len(r.Token))
	b[0] = tag
	b = appendVarint(b, 1, r.ID)
	b = appendString(b, 2, r.Member)
	b = appendVarint(b, 3, protowire.EncodeZigZag(r.Generation))
	b = appendBytes(b, 4, r.Result)
	b = appendBytes(b, 6, r.Token)
	if e := r.Err; e != nil {
		var eb []byte
		eb = appendString(eb, 1, e.Kind)
		eb = appendString(eb, 2, e.Message)
		eb = appendString(eb, 3, e.Owner)
		eb = appendVarint(eb, 4, protowire.EncodeZigZag(e.Code))
		eb = appendBytes(eb, 5, e.Data)
		eb = appendString(eb, 6, e.Method)
		eb = appendString(eb, 7, e.State)
		eb = appendBytes(eb, 8, e.Hop)
		b = protowire.AppendTag(b, 5, protowire.BytesType)
		b = protowire.AppendBytes(b, eb)
	}
	return b
}

func (e *wireError) size() int {
	if e == nil {
		return 0
	}
	return 32 + len(e.Kind) + len(e.Message) + len(e.Owner) + len(e.Data) + len(e.Method) + len(e.State) + len(e.Hop)
}

func mapSize(m map[string]string) int {
	n := 0
	for k, v := range m {
		n += 8 + len(k) + len(v)
	}
	return n
}

// The fields' writers leave out zero values, as protobuf does.

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// appendMap writes m as repeated entries of key (1) and value (2), the
// encoding of a protobuf map.
func appendMap(b []byte, num protowire.Number, m map[string]string) []byte {
	for k, v := range m {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(protowire.SizeTag(1)+protowire.SizeBytes(len(k))+protowire.SizeTag(2)+protowire.SizeBytes(len(v))))
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, k)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, v)
	}
	return b
}

// decode reads a message; tag is 0 for one that is not ours. The bytes
// fields (Args, Result, Data) share msg's memory, which nothing else
// holds: protobuf's decoding copied it out of gRPC's buffers.
func decode(msg any) (tag byte, req *request, resp *response, err error) {
	bv, ok := msg.(*wrapperspb.BytesValue)
	if !ok || len(bv.GetValue()) == 0 {
		return 0, nil, nil, nil
	}
	b := bv.GetValue()
	switch b[0] {
	case tagRequest:
		req = new(request)
		err = req.unmarshal(b[1:])
	case tagResponse, tagProgress:
		resp = new(response)
		err = resp.unmarshal(b[1:])
	default:
		return 0, nil, nil, fmt.Errorf("unknown message tag %q", b[0])
	}
	return b[0], req, resp, err
}

func (r *request) unmarshal(b []byte) error {
	return readFields(b, func(num protowire.Number, v uint64, field []byte) error {
		switch num {
		case 1:
			r.ID = v
		case 2:
			r.ReplyAddr = string(field)
		case 3:
			r.ReplyID = string(field)
		case 4:
			r.From = string(field)
		case 5:
			r.Server = string(field)
		case 6:
			r.Tenant = string(field)
		case 7:
			r.Method = methodName(field)
		case 8:
			r.Timeout = time.Duration(protowire.DecodeZigZag(v))
		case 9:
			r.Name = string(field)
		case 10:
			r.Args = field
		case 11:
			r.URI = string(field)
		case 12:
			return readEntry(&r.PromptArgs, field)
		case 13:
			return readEntry(&r.Trace, field)
		case 14:
			r.Token = field
		case 15:
			r.CallTimeout = time.Duration(protowire.DecodeZigZag(v))
		case 16:
			r.ResetOnProgress = protowire.DecodeBool(v)
		case 17:
			r.MaxTotalTimeout = time.Duration(protowire.DecodeZigZag(v))
		case 18:
			r.Meta = field
		case 19:
			r.BusyRetryUnsafe = protowire.DecodeBool(v)
		case 20:
			r.ValidateOutput = protowire.DecodeBool(v)
		case 21:
			r.Progress = protowire.DecodeBool(v)
		}
		return nil
	})
}

func (r *response) unmarshal(b []byte) error {
	return readFields(b, func(num protowire.Number, v uint64, field []byte) error {
		switch num {
		case 1:
			r.ID = v
		case 2:
			r.Member = string(field)
		case 3:
			r.Generation = protowire.DecodeZigZag(v)
		case 4:
			r.Result = field
		case 5:
			r.Err = new(wireError)
			return r.Err.unmarshal(field)
		case 6:
			r.Token = field
		}
		return nil
	})
}

func (e *wireError) unmarshal(b []byte) error {
	return readFields(b, func(num protowire.Number, v uint64, field []byte) error {
		switch num {
		case 1:
			e.Kind = string(field)
		case 2:
			e.Message = string(field)
		case 3:
			e.Owner = string(field)
		case 4:
			e.Code = protowire.DecodeZigZag(v)
		case 5:
			e.Data = field
		case 6:
			e.Method = string(field)
		case 7:
			e.State = string(field)
		case 8:
			e.Hop = field
		}
		return nil
	})
}

// readEntry adds the map entry (key 1, value 2) in b to *m.
func readEntry(m *map[string]string, b []byte) error {
	var k, v string
	err := readFields(b, func(num protowire.Number, _ uint64, field []byte) error {
		switch num {
		case 1:
			k = string(field)
		case 2:
			v = string(field)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[k] = v
	return nil
}

// readFields calls field for each field of the message b: v is a varint
// field's value, field a bytes field's contents. Fields of other types
// are skipped, so that a later version may add some.
func readFields(b []byte, field func(num protowire.Number, v uint64, field []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var bytes []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			bytes, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n >= 0 {
				b = b[n:]
				continue
			}
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := field(num, v, bytes); err != nil {
			return err
		}
	}
	return nil
}

// methodName is the method named by b, without allocating for the
// methods this package sends.
func methodName(b []byte) string {
	for _, m := range [...]string{methodCallTool, methodListTools, methodListResources, methodReadResource, methodListPrompts, methodGetPrompt, methodInfo,
		methodStartTask, methodGetTask, methodCancelTask, methodListTasks, methodAwaitTask} {
		if string(b) == m {
			return m
		}
	}
	return string(b)
}

// encodeError turns an owner-side error into its wire form. The
// cluster's own errors have kinds of their own; every other crosses as a
// hopError (hop_errors.go), naming the server by id rather than by
// internal, the name the owner's manager runs it under ("" if none).
func encodeError(err error, internal string, id Identity) *wireError {
	var notOwner *NotOwnerError
	var unknown *UnknownServerError
	var panicked *CallbackPanicError
	var etcd *EtcdUnavailableError
	switch {
	case errors.As(err, &etcd):
		return &wireError{Kind: kindEtcd, Owner: etcd.Member, Message: etcd.Reason}
	case errors.As(err, &panicked):
		return &wireError{Kind: kindCallbackPanic, Method: panicked.Callback, Owner: panicked.Member, Message: panicked.Value}
	case errors.As(err, &notOwner):
		return &wireError{Kind: kindNotOwner, Message: notOwner.Reason, Owner: notOwner.Owner}
	case errors.As(err, &unknown):
		return &wireError{Kind: kindUnknownServer, Message: err.Error()}
	case errors.Is(err, ErrStopped):
		return &wireError{Kind: kindStopped, Message: err.Error()}
	case errors.Is(err, ErrTooManyActivations):
		return &wireError{Kind: kindLimit, Message: err.Error()}
	}
	w := &wireError{Kind: kindHop, Method: fmt.Sprintf("%T", err)}
	w.Hop, _ = json.Marshal(encodeHopError(err, internal, id))
	return w
}

// decodeError rebuilds the error a response carries, naming the member
// that answered and the method.
func (w *wireError) decode(id Identity, member, method string) error {
	switch w.Kind {
	case kindNotOwner:
		return &NotOwnerError{Identity: id, Member: member, Method: method, Owner: w.Owner, Reason: w.Message}
	case kindUnknownServer:
		return &UnknownServerError{Server: id.Server, Member: member, Method: method}
	case kindHop:
		var h hopError
		if json.Unmarshal(w.Hop, &h) == nil {
			return h.decode(id, member, method)
		}
	case kindLimit:
		return &RemoteError{Identity: id, Member: member, Method: method, Message: w.Message, matches: []error{ErrTooManyActivations}}
	case kindEtcd:
		return &EtcdUnavailableError{Identity: id, Method: method, Member: w.Owner, Reason: w.Message}
	case kindCallbackPanic:
		return &CallbackPanicError{Callback: w.Method, Identity: id, Member: w.Owner, Value: w.Message}
	case kindStopped:
		return &MemberLostError{Identity: id, Member: member, Method: method, Reason: "member stopping"}
	case kindFenced:
		return &MemberLostError{Identity: id, Member: member, Method: method, Reason: "its lease could not be renewed in time"}
	}
	return &RemoteError{Identity: id, Member: member, Method: method, Kind: w.Method, Message: w.Message}
}
