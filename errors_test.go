package mcpactor_test

// The error vocabulary (errors.go): texts that name the server and the
// method, the sentinels each kind of failure matches, and a walk of the
// source that finds every error type a root sentinel.

import (
	"context"
	"errors"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// TestErrorTextsNameServerAndMethod checks that the errors that end a
// request say, in their text, which server (as the caller named it) and
// which method: a log line holding only err.Error() must tell which of
// many servers failed. The stderr excerpt of a server that exited is
// labelled as such, so that what it printed is not read as the cause.
func TestErrorTextsNameServerAndMethod(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, mcpactor.Options{})
	c, err := rt.Connect(waitCtx(t), "files-A.1", testServerConfig(testserver.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CallToolWith(waitCtx(t), "sleep", map[string]any{"ms": 20000}, mcpactor.CallOptions{Timeout: 200 * time.Millisecond})
	var te *mcpactor.Error
	if !(errors.As(err, &te) && callerr.Timeout(te) == te) || !errors.Is(err, mcpactor.ErrTimeout) {
		t.Fatalf("sleep past its timeout: %v, want an ErrTimeout error", err)
	}
	if got, want := err.Error(), `MCP server "files-A.1": tools/call (id `+te.ID.String()+`): Request timeout after 200ms`; got != want {
		t.Errorf("timeout text = %q, want %q", got, want)
	}

	_, err = c.CallTool(waitCtx(t), "crash", map[string]any{"code": 3, "stderr": "listening on stdio"})
	var tc *mcpactor.Error
	if !(errors.As(err, &tc) && callerr.TransportClosed(tc) == tc) || !errors.Is(err, mcpactor.ErrTransportClosed) {
		t.Fatalf("crash: %v, want an ErrTransportClosed error", err)
	}
	if got, want := err.Error(), `MCP server "files-A.1": tools/call: Transport closed: exit status 3; stderr: listening on stdio`; got != want {
		t.Errorf("crash text = %q, want %q", got, want)
	}
	if tc.Server != "files-A.1" || tc.Method != "tools/call" {
		t.Errorf("Server, Method = %q, %q, want files-A.1, tools/call", tc.Server, tc.Method)
	}
	// The connection's own end, as Err reports it, is no request's. The
	// call's error can reach the caller before the client has recorded
	// that end: wait for it.
	harness.WaitFor(t, "the client to record its connection's end", func() bool { return c.Err() != nil })
	if err := c.Err(); err == nil || !strings.HasPrefix(err.Error(), `MCP server "files-A.1": Transport closed: exit status 3; stderr: `) {
		t.Errorf("Err() = %v, want the connection's end naming the server", err)
	}
}

// TestConfigSyntaxErrorMatchesErrConfig checks that a configuration file
// Manage cannot parse is told by errors.Is(err, ErrConfig), as every
// configuration that cannot work is.
func TestConfigSyntaxErrorMatchesErrConfig(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, mcpactor.Options{})
	for name, body := range map[string]string{
		"syntax":     `{"mcpServers": {"a": {"command": "x",}`,
		"not object": `{"mcpServers": []}`,
		"no servers": `{"other": {}}`,
		"empty":      `{"mcpServers": {}}`,
		"invalid":    `{"mcpServers": {"a": {"comand": "x"}}}`,
	} {
		path := filepath.Join(t.TempDir(), "mcp.json")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := rt.Manage(waitCtx(t), mcpactor.ManageOptions{ConfigFile: path, NoCache: true})
		if !errors.Is(err, mcpactor.ErrConfig) {
			t.Errorf("%s: Manage = %v (%T), want errors.Is ErrConfig", name, err, err)
		}
	}
}

// TestUnencodableArgumentsMatchErrInvalidArguments checks that arguments
// encoding/json cannot encode are refused, before anything is sent, with
// an ErrInvalidArguments error: errors.Is(err, ErrInvalidArguments), naming the
// server and the tool, and unwrapping to encoding/json's reason.
func TestUnencodableArgumentsMatchErrInvalidArguments(t *testing.T) {
	t.Parallel()
	fake := &mcptest.Server{}
	rt := startRuntime(t, mcpactor.Options{})
	t.Cleanup(fake.Close)
	c, err := rt.Connect(waitCtx(t), "enc", fake.InProcess())
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []any{struct{ X chan int }{make(chan int)}, map[string]any{"f": func() {}}} {
		_, err := c.CallTool(waitCtx(t), "echo", args)
		var ae *mcpactor.Error
		if !errors.Is(err, mcpactor.ErrInvalidArguments) || !(errors.As(err, &ae) && errors.Is(ae, mcpactor.ErrInvalidArguments)) || ae.Server != "enc" || ae.Tool != "echo" || ae.Cause == nil {
			t.Errorf("CallTool(%T): %v (%T), want an ErrInvalidArguments error matching ErrInvalidArguments", args, err, err)
		}
		_, err = c.CallToolWith(waitCtx(t), "echo", args, mcpactor.CallOptions{OnProgress: func(messages.ProgressParams) {}})
		if !errors.Is(err, mcpactor.ErrInvalidArguments) {
			t.Errorf("CallToolWith(%T, progress): %v (%T), want ErrInvalidArguments", args, err, err)
		}
	}
	if n := countOf(fake.Methods(), "tools/call"); n != 0 {
		t.Errorf("%d tools/call reached the server", n)
	}
}

// TestManagerUnknownNamesMatchSentinels checks that a tool no managed
// server offers and a server the manager does not manage are told by
// errors.Is, with ErrNotFound and ErrUnknownServer.
func TestManagerUnknownNamesMatchSentinels(t *testing.T) {
	t.Parallel()
	ctx, _, m := startManager(t, mcpactor.ManageOptions{NoCache: true})
	defer m.Close(ctx)
	_, err := m.CallTool(ctx, "mcp__nobody__echo", nil)
	var ut *mcpactor.Error
	if !errors.Is(err, mcpactor.ErrNotFound) || !(errors.As(err, &ut) && callerr.UnknownTool(ut) == ut) {
		t.Errorf("CallTool of an unknown tool: %v (%T), want ErrNotFound", err, err)
	}
	if _, err := m.GetPrompt(ctx, "mcp__nobody__p", nil); !errors.Is(err, mcpactor.ErrNotFound) {
		t.Errorf("GetPrompt of an unknown prompt: %v (%T), want ErrNotFound", err, err)
	}
	for what, err := range map[string]error{
		"Remove":  m.Remove(ctx, "nobody"),
		"Restart": m.Restart(ctx, "nobody"),
	} {
		var us *mcpactor.Error
		if !errors.Is(err, mcpactor.ErrNotFound) || !(errors.As(err, &us) && callerr.UnknownServer(us) == us) {
			t.Errorf("%s of an unknown server: %v (%T), want ErrUnknownServer", what, err, err)
		}
	}
	if _, err := m.ReadResource(ctx, "nobody", "file:///x"); !errors.Is(err, mcpactor.ErrNotFound) {
		t.Errorf("ReadResource of an unknown server: %v (%T), want ErrUnknownServer", err, err)
	}
}

// surfacingPackages are the packages whose errors the root package can
// return: its own, the types it re-exports (messages), and what the
// client (actors), its transports and the Manager (supervisor, its
// configuration) make. supervisor/cluster and transport/oauth have
// sentinels of their own, in their own packages.
var surfacingPackages = []string{".", "messages", "internal/callerr", "transport", "actors", "supervisor", "supervisor/config"}

// errorSample is how an error type of surfacingPackages reaches a caller
// of the root package. sample is one made as its constructors make it,
// checked to match a root sentinel; an unexported type (which this test
// cannot make) or one that never reaches a caller by itself says instead
// where it travels (never empty): in the error that carries it, which is
// in this table too.
type errorSample struct {
	sample func() error
	inside string
}

func pipeBroken() error { return &os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE} }

var errorSamples = map[string]errorSample{
	"callerr.Error": {sample: func() error {
		return callerr.NewTransportClosed(&callerr.Error{Server: "s", Method: "tools/call", Cause: pipeBroken(), ExitStatus: "signal: killed"})
	}},
	"callerr.RPCError": {sample: func() error {
		return &mcpactor.RPCError{Server: "s", Method: "tools/call", Code: -32602, Message: "bad"}
	}},
	"messages.ConfigError": {sample: func() error { return &messages.ConfigError{Server: "s", Problems: []string{"no command"}} }},
	"messages.TaskError": {sample: func() error {
		return &messages.TaskError{Server: "s", TaskID: "t", Status: messages.TaskFailed,
			Err: &mcpactor.RPCError{Server: "s", Method: "tools/call", Code: -32603, Message: "disk full"}}
	}},
	"messages.Error": {inside: "the JSON-RPC error object on the wire: an answer carrying one reaches the caller as a *mcpactor.RPCError; " +
		"a handler that returns one has its code sent to the server"},
	"transport.PanicError": {inside: "the Cause of the *callerr.Error of a transport actor that panicked"},
	"transport.FencePanicError": {inside: "the refusal of a ServerConfig.Fence that panicked: the caller's own callback, as " +
		"the fence's own errors are the caller's"},
	"transport.oversizedError":        {inside: "the reader's; an oversized answer ends its request with a *callerr.Error"},
	"transport.sseEventTooLargeError": {inside: "an SSE stream over the cap: the Cause of a *callerr.Error (the answer broke off)"},
	"transport.refusedBody":           {inside: "a fenced HTTP body's refusal, unwrapped to the fence's own error before it reaches a caller"},
	"transport.quietURLError":         {inside: "the Cause of a *callerr.Error, a net/http error with the URL left out"},
	"transport.envInheritanceError":   {inside: "the Cause of a *callerr.Error: the environment could not be built"},
	"transport.networkError":          {inside: "the Cause of a *callerr.Error (ErrHTTP: unreachable)"},
	"transport.authFailure":           {inside: "the Cause of a *callerr.Error (ErrAuthorization), which it matches"},
	"actors.versionRefused":           {inside: "a probe's refusal, turned into its *callerr.Error before it leaves the client"},
	"supervisor.restartWaitError":     {inside: "the Cause of a *callerr.Error (a call that waited for a restart)"},
	"config.commandError":             {inside: "a ServerStatus.LastError; it matches ErrConfig"},
}

// rootSentinels are the sentinels of the root package, and the context
// errors a caller's own context ends a call with.
func rootSentinels() map[string]error {
	return map[string]error{
		"ErrTransportClosed": mcpactor.ErrTransportClosed, "ErrTimeout": mcpactor.ErrTimeout, "ErrStart": mcpactor.ErrStart,
		"ErrRPC": mcpactor.ErrRPC, "ErrHTTP": mcpactor.ErrHTTP, "ErrAuthorization": mcpactor.ErrAuthorization,
		"ErrBadResponse": mcpactor.ErrBadResponse, "ErrInvalidArguments": mcpactor.ErrInvalidArguments,
		"ErrConfig": mcpactor.ErrConfig, "ErrUnsupported": mcpactor.ErrUnsupported, "ErrStopped": mcpactor.ErrStopped,
		"ErrServerUnavailable": mcpactor.ErrServerUnavailable, "ErrNotFound": mcpactor.ErrNotFound,
		"context.Canceled": context.Canceled, "context.DeadlineExceeded": context.DeadlineExceeded,
	}
}

// TestEveryErrorTypeMatchesARootSentinel walks the source of the packages
// whose errors the root package returns, finds every type with an Error
// method, and checks that each is in errorSamples, and that each sample
// matches a root sentinel with errors.Is: a caller can tell every error
// the runtime returns by errors.Is, never by its text. A new error type
// fails this test until it is placed here.
func TestEveryErrorTypeMatchesARootSentinel(t *testing.T) {
	t.Parallel()
	found := errorTypesIn(t, surfacingPackages)
	sentinels := rootSentinels()
	for _, name := range exportedSentinelsOfRoot(t) {
		if _, ok := sentinels[name]; !ok {
			t.Errorf("root sentinel %s is not in rootSentinels: add it", name)
		}
	}
	for _, name := range found {
		s, ok := errorSamples[name]
		switch {
		case !ok:
			t.Errorf("error type %s is not in errorSamples: say which root sentinel it matches, or what carries it", name)
			continue
		case s.sample == nil && s.inside == "":
			t.Errorf("%s: neither a sample nor where it travels", name)
			continue
		case s.sample == nil:
			continue
		}
		err := s.sample()
		var matched []string
		for sname, sentinel := range sentinels {
			if errors.Is(err, sentinel) {
				matched = append(matched, sname)
			}
		}
		if len(matched) == 0 {
			t.Errorf("%s (%q) matches no root sentinel", name, err)
		}
	}
	for name := range errorSamples {
		if !slices.Contains(found, name) {
			t.Errorf("errorSamples lists %s, which the walk did not find: remove it", name)
		}
	}
}

// errorTypesIn returns "pkg.Type" for every type of dirs (relative to the
// module's root, this package's directory) with an Error() string method,
// test files left out.
func errorTypesIn(t *testing.T, dirs []string) []string {
	t.Helper()
	var out []string
	for _, dir := range dirs {
		for _, f := range harness.SourceFiles(t, dir) {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || fn.Name.Name != "Error" || fn.Type.Params.NumFields() != 0 ||
					fn.Type.Results.NumFields() != 1 || !isIdent(fn.Type.Results.List[0].Type, "string") {
					continue
				}
				name := f.Name.Name + "." + receiverType(fn.Recv.List[0].Type)
				if !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("the walk found %d error types: %v", len(out), out)
	}
	slices.Sort(out)
	return out
}

func receiverType(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.StarExpr:
		return receiverType(v.X)
	case *ast.IndexExpr:
		return receiverType(v.X)
	case *ast.Ident:
		return v.Name
	}
	return reflect.TypeOf(e).String()
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// exportedSentinelsOfRoot returns the exported Err... variables the root
// package declares.
func exportedSentinelsOfRoot(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range harness.SourceFiles(t, ".") {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					if strings.HasPrefix(id.Name, "Err") && id.IsExported() {
						out = append(out, id.Name)
					}
				}
			}
		}
	}
	return out
}
