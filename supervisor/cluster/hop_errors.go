package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/messages"
)

// An error of the owner's runtime or manager keeps its identity across
// the hop: the caller gets the same type (errors.As) with the same fields,
// and every sentinel it matched on the owner (errors.Is), as a Manager on
// one machine would return. The owner encodes it as a hopError: the
// outermost error of a type in hopTypes, its plain fields as JSON and its
// error fields as hopErrors of their own; the caller rebuilds each typed
// error as a new value of that type. Errors of other types cross as text
// with their sentinels. The server is named as the user named it (the
// identity's server), never by the owner manager's internal name
// (clientName: "alpha.1234"), in fields and text alike.
type hopError struct {
	Type      string               `json:"t,omitempty"` // a hopTypes key
	Fields    json.RawMessage      `json:"f,omitempty"` // its plain fields
	Causes    map[string]*hopError `json:"c,omitempty"` // its error fields, by field name
	Text      string               `json:"x,omitempty"` // the error's text
	Sentinels []string             `json:"s,omitempty"` // hopSentinels it matched
	Joined    []*hopError          `json:"j,omitempty"` // the errors it joins (errors.Join), when of no type
}

// hopSentinels are the sentinels a caller may match after the hop, by
// their wire names: the runtime's kinds (by the names their errors'
// JSON gives them) and the decoder's.
var hopSentinels = map[string]error{
	"transport-closed": errkind.ErrTransportClosed, "timeout": errkind.ErrTimeout, "start": errkind.ErrStart,
	"rpc": errkind.ErrRPC, "http": errkind.ErrHTTP, "authorization": errkind.ErrAuthorization,
	"bad-response": errkind.ErrBadResponse, "invalid-arguments": errkind.ErrInvalidArguments,
	"config": errkind.ErrConfig, "unsupported": errkind.ErrUnsupported, "stopped": errkind.ErrStopped,
	"server-unavailable": errkind.ErrServerUnavailable, "not-found": errkind.ErrNotFound,
	"not-json-rpc": messages.ErrNotJSONRPC, "invalid-request-id": messages.ErrInvalidRequestID,
	"canceled": context.Canceled, "deadline-exceeded": context.DeadlineExceeded,
}

// hopTypes are the typed errors rebuilt after the hop, by name. A
// *callerr.Error crosses as its JSON (its kind and case by name,
// its fields) and its Cause.
var hopTypes = map[string]reflect.Type{}

func init() {
	for _, e := range []error{&callerr.Error{}, &callerr.RPCError{}, &messages.ConfigError{}, &messages.TaskError{}} {
		t := reflect.TypeOf(e)
		hopTypes[t.Elem().Name()] = t
	}
}

// maxHopDepth bounds the nesting of causes encoded.
const maxHopDepth = 4

var (
	errorType = reflect.TypeFor[error]()
	joinType  = reflect.TypeOf(errors.Join(errors.New("")))
)

// encodeHopError is err's hopError, with the manager's name of the
// server (internal, "" when none) replaced by the identity's.
func encodeHopError(err error, internal string, id Identity) *hopError {
	names := strings.NewReplacer()
	if internal != "" {
		base := strings.TrimSuffix(internal, ".probed")
		names = strings.NewReplacer(base+".probed", id.String(), base, id.String())
	}
	return encodeHop(err, names, 0)
}

func encodeHop(err error, names *strings.Replacer, depth int) *hopError {
	h := &hopError{Text: names.Replace(err.Error())}
	for name, s := range hopSentinels {
		if errors.Is(err, s) {
			h.Sentinels = append(h.Sentinels, name)
		}
	}
	slices.Sort(h.Sentinels)
	if j, ok := err.(interface{ Unwrap() []error }); ok && reflect.TypeOf(err) == joinType && depth < maxHopDepth {
		// Both attempts of an http server's fallback (callerr.NewFallback).
		for _, e := range j.Unwrap() {
			h.Joined = append(h.Joined, encodeHop(e, names, depth+1))
		}
		return h
	}
	typed := firstTyped(err)
	if typed == nil {
		return h
	}
	v := reflect.ValueOf(typed).Elem()
	h.Type = v.Type().Name()
	fields := map[string]any{}
	carrier, isCarrier := typed.(*callerr.Error)
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		switch {
		case !f.IsExported(), f.Name == "Kind":
		case f.Type == errorType:
			if cause, ok := fv.Interface().(error); ok && cause != nil && depth < maxHopDepth {
				if h.Causes == nil {
					h.Causes = map[string]*hopError{}
				}
				h.Causes[f.Name] = encodeHop(cause, names, depth+1)
			}
		case isCarrier:
		case f.Type.Kind() == reflect.String:
			fields[f.Name] = names.Replace(fv.String())
		case f.Type.Kind() == reflect.Interface, f.Type.Kind() == reflect.Func, f.Type.Kind() == reflect.Chan:
		default:
			fields[f.Name] = fv.Interface()
		}
	}
	if isCarrier {
		if b, err := callerr.Marshal(carrier); err == nil {
			h.Fields = []byte(names.Replace(string(b)))
		}
	} else if b, err := json.Marshal(fields); err == nil {
		h.Fields = b
	}
	return h
}

// firstTyped is the outermost error in err's tree of a type in hopTypes.
func firstTyped(err error) error {
	for _, e := range errTree(err, 0) {
		if t, ok := hopTypes[reflect.TypeOf(e).Elem().Name()]; ok && reflect.TypeOf(e) == t {
			return e
		}
	}
	return nil
}

// errTree lists err and what it wraps, depth first.
func errTree(err error, depth int) []error {
	if err == nil || depth > 16 {
		return nil
	}
	out := []error{}
	if reflect.TypeOf(err).Kind() == reflect.Pointer {
		out = append(out, err)
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		out = append(out, errTree(u.Unwrap(), depth+1)...)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			out = append(out, errTree(e, depth+1)...)
		}
	}
	return out
}

// decode rebuilds h's error on the caller: its typed error, and the
// sentinels it matched that the typed error does not match by itself;
// an error of no type of hopTypes is a *RemoteError matching them.
// Server fields name the identity (its server, and its tenant if any).
func (h *hopError) decode(id Identity, member, method string) error {
	out := h.rebuild(id.String())
	var missing []error
	for _, name := range h.Sentinels {
		if s, ok := hopSentinels[name]; ok && (out == nil || !errors.Is(out, s)) {
			missing = append(missing, s)
		}
	}
	switch {
	case out == nil:
		return &RemoteError{Identity: id, Member: member, Method: method, Message: h.Text, matches: missing}
	case len(missing) == 0:
		return out
	default:
		return &hopText{text: out.Error(), errs: append([]error{out}, missing...)}
	}
}

// rebuild is h's typed error, or nil.
func (h *hopError) rebuild(server string) error {
	t, ok := hopTypes[h.Type]
	if !ok {
		return nil
	}
	v := reflect.New(t.Elem())
	if carrier, ok := v.Interface().(*callerr.Error); ok && len(h.Fields) > 0 {
		_ = callerr.Unmarshal(h.Fields, carrier)
	} else if len(h.Fields) > 0 {
		_ = json.Unmarshal(h.Fields, v.Interface())
	}
	for name, c := range h.Causes {
		if f := v.Elem().FieldByName(name); f.IsValid() && f.CanSet() && f.Type() == errorType && c != nil {
			f.Set(reflect.ValueOf(c.rebuildAny(server)))
		}
	}
	if f := v.Elem().FieldByName("Server"); f.IsValid() && f.CanSet() && f.Kind() == reflect.String && f.String() != "" {
		f.SetString(server)
	}
	return v.Interface().(error)
}

// rebuildAny is h's error: its typed error, the errors it joins, or its
// text with its sentinels.
func (h *hopError) rebuildAny(server string) error {
	if len(h.Joined) > 0 {
		errs := make([]error, len(h.Joined))
		for i, j := range h.Joined {
			errs[i] = j.rebuildAny(server)
		}
		return errors.Join(errs...)
	}
	if e := h.rebuild(server); e != nil {
		return e
	}
	return &hopText{text: h.Text, errs: sentinelsOf(h)}
}

func sentinelsOf(h *hopError) []error {
	var out []error
	for _, name := range h.Sentinels {
		if s, ok := hopSentinels[name]; ok {
			out = append(out, s)
		}
	}
	return out
}

// hopText is an error that crossed the hop as text, with the errors it
// matched on the owner.
type hopText struct {
	text string
	errs []error
}

func (e *hopText) Error() string   { return e.text }
func (e *hopText) Unwrap() []error { return e.errs }
