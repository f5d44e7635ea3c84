package mcpactor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"testing"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/transport"
)

// The root declares its constants with their values, for go doc; the
// engine uses its own.
func TestConstantsMatchTheEngine(t *testing.T) {
	if MaxPages != actors.MaxPages {
		t.Errorf("MaxPages is %d, %d in the engine", MaxPages, actors.MaxPages)
	}
	if DefaultCloseTimeout != actors.DefaultCloseTimeout {
		t.Errorf("DefaultCloseTimeout is %v, %v in the engine", DefaultCloseTimeout, actors.DefaultCloseTimeout)
	}
	if CallFailureThreshold != supervisor.CallFailureThreshold {
		t.Errorf("CallFailureThreshold is %d, %d in the engine", CallFailureThreshold, supervisor.CallFailureThreshold)
	}
}

// The root declares the manager's enumerations with their values, for
// go doc; the engine has its own. A value that drifts would turn one into
// another silently at the conversion, so each pair is compared here.
func TestEnumerationsMatchTheEngine(t *testing.T) {
	kinds := map[EventKind]supervisor.EventKind{
		EventToolsChanged:   supervisor.EventToolsChanged,
		EventStateChanged:   supervisor.EventStateChanged,
		EventCatalogChanged: supervisor.EventCatalogChanged,
	}
	for root, engine := range kinds {
		if string(root) != string(engine) {
			t.Errorf("EventKind %q is %q in the engine", root, engine)
		}
	}
	policies := map[StartupPolicy]supervisor.StartupPolicy{
		StartupWaitUncached: supervisor.StartupWaitUncached,
		StartupGate:         supervisor.StartupGate,
		StartupImmediate:    supervisor.StartupImmediate,
	}
	for root, engine := range policies {
		if int(root) != int(engine) {
			t.Errorf("StartupPolicy %d is %d in the engine", root, engine)
		}
	}
	states := map[ServerState]supervisor.State{
		StateConnecting: supervisor.StateConnecting, StateReady: supervisor.StateReady,
		StateRestarting: supervisor.StateRestarting, StateBreakerOpen: supervisor.StateBreakerOpen,
		StateUnhealthy: supervisor.StateUnhealthy, StateDisabled: supervisor.StateDisabled,
		StateRefused: supervisor.StateRefused, StateFailed: supervisor.StateFailed,
	}
	for root, engine := range states {
		if string(root) != string(engine) {
			t.Errorf("ServerState %q is %q in the engine", root, engine)
		}
	}
	envs := map[EnvInheritance]transport.EnvInheritance{
		EnvInheritAll: transport.EnvInheritAll, EnvInheritSafe: transport.EnvInheritSafe, EnvInheritNone: transport.EnvInheritNone,
	}
	for root, engine := range envs {
		if string(root) != string(engine) {
			t.Errorf("EnvInheritance %q is %q in the engine", root, engine)
		}
	}
}

// ServerConfig is the user's shape of what the engine holds as an
// actors.Spec and a config.Server's supervision fields. A field added to
// ServerConfig and forgotten by spec or configOf would be silently
// dropped: every field is set here to a value of its own, and must come
// back from the engine's shape unchanged.
func TestServerConfigRoundTrip(t *testing.T) {
	var in ServerConfig
	fillFields(t, reflect.ValueOf(&in).Elem())
	in.Type, in.InheritEnv = "stdio", EnvInheritSafe // a valid configuration: Validate runs
	in.URL, in.Dial, in.Auth = "", nil, nil
	srv, err := in.server("round-trip")
	if err != nil {
		t.Fatal(err)
	}
	in.QueueTimeout = srv.Spec.Limits.QueueTimeout // filled in only when zero
	if out := configOf(srv); !reflect.DeepEqual(out, in) {
		t.Errorf("round trip changed the configuration:\n in %#v\nout %#v", fmt.Sprintf("%+v", in), fmt.Sprintf("%+v", out))
	}

	// The fields a stdio server ignores, on an http one.
	web := ServerConfig{URL: "https://example.com/mcp", Headers: map[string]string{"A": "b"}, Auth: testAuthorizer{}}
	if got := configOf(must(web.server("web"))); got.URL != web.URL || got.Headers["A"] != "b" || got.Auth != web.Auth {
		t.Errorf("http fields lost: %+v", got)
	}
	dial := ServerConfig{Dial: func(context.Context) (io.ReadWriteCloser, error) { return nil, nil }}
	if got := configOf(must(dial.server("dial"))); got.Dial == nil || got.Auth != nil {
		t.Errorf("Dial lost, or a nil Authorizer made non-nil: %+v", got)
	}
}

// ServerStatus is declared in the root; statusOf copies the engine's
// status into it field by field. Both must hold the same fields, and
// statusOf must copy each.
func TestServerStatusCopiesEveryField(t *testing.T) {
	var in supervisor.Status
	fillFields(t, reflect.ValueOf(&in).Elem())
	out := statusOf(in)
	rt, et := reflect.TypeOf(out), reflect.TypeOf(in)
	if rt.NumField() != et.NumField() {
		t.Fatalf("ServerStatus has %d fields, the engine's status %d", rt.NumField(), et.NumField())
	}
	for i := range et.NumField() {
		name := et.Field(i).Name
		r := reflect.ValueOf(out).FieldByName(name)
		if !r.IsValid() {
			t.Errorf("ServerStatus has no field %s", name)
			continue
		}
		e := reflect.ValueOf(in).Field(i)
		if r.Kind() == reflect.Struct || r.Kind() == reflect.String {
			if fmt.Sprint(r.Interface()) != fmt.Sprint(e.Interface()) {
				t.Errorf("%s: %v, want %v", name, r.Interface(), e.Interface())
			}
			continue
		}
		if !reflect.DeepEqual(r.Interface(), e.Interface()) {
			t.Errorf("%s: %v, want %v", name, r.Interface(), e.Interface())
		}
	}
}

// fillFields sets every field of the struct v to a distinct non-zero
// value.
func fillFields(t *testing.T, v reflect.Value) {
	t.Helper()
	for i := range v.NumField() {
		f := v.Field(i)
		n := int64(i + 1)
		switch f.Kind() {
		case reflect.String:
			f.SetString(fmt.Sprintf("v%d", n))
		case reflect.Int, reflect.Int64:
			f.SetInt(n)
		case reflect.Uint64:
			f.SetUint(uint64(n))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.Append(reflect.MakeSlice(f.Type(), 0, 1), reflect.ValueOf(fmt.Sprintf("v%d", n))))
		case reflect.Map:
			m := reflect.MakeMap(f.Type())
			m.SetMapIndex(reflect.ValueOf("K"), reflect.ValueOf(fmt.Sprintf("v%d", n)))
			f.Set(m)
		case reflect.Struct:
			fillFields(t, f)
		case reflect.Interface:
			if f.Type() == reflect.TypeFor[error]() {
				f.Set(reflect.ValueOf(errors.New("last")))
			}
		case reflect.Func:
		default:
			t.Fatalf("field %s: kind %s not filled", v.Type().Field(i).Name, f.Kind())
		}
	}
}

type testAuthorizer struct{}

func (testAuthorizer) RoundTripper(_ string, base http.RoundTripper) http.RoundTripper { return base }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
