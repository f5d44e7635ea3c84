package mcpactor_test

// Credentials in a server's configuration go nowhere but to the server: not
// into a returned error, a log line (at any level), a span (name,
// attributes, status, events), a manager's status or event, or an excerpt
// of the server's output. Each secret below is planted in one place of a
// configuration and looked for in everything the runtime produced.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// The planted secrets, one per place a configuration holds one.
const (
	secretQuery    = "Qk9-PLANTED-query-7d1e"  // a secret-looking query parameter of the URL
	secretUserinfo = "Uf3-PLANTED-userinfo-2b" // the password of the URL's user:password@
	secretBearer   = "Br8-PLANTED-bearer-5c0a" // an Authorization header
	secretAPIKey   = "Ak2-PLANTED-apikey-91fe" // an X-Api-Key header
	secretEnv      = "Ev6-PLANTED-env-44d3a"   // a stdio server's env value
	// A hosted server's key in its URL's path (https://host/mcp/<key>/sse):
	// no name marks it, it looks like a key.
	secretPathKey = "Pk4PLANTEDpathkey9c2e7b1a"
	// A URL part a ${VAR} supplied: a query value whose name says nothing.
	secretExpanded = "Vx5-PLANTED-expanded-3e8"
	// The password of a URL that does not parse: its '/' makes net/url
	// read its first half as a port.
	secretUnparsable = "Un7-PLANTED/unparsable-0d"
)

var plantedSecrets = []string{secretQuery, secretUserinfo, secretBearer, secretAPIKey, secretEnv,
	secretPathKey, secretExpanded, secretUnparsable}

// The echo-secrets server is a careless stdio server: its echo-env tool
// prints its SERVICE_TOKEN on stderr and answers with a JSON-RPC error
// quoting it (message and data); its echo tool returns what it is sent.
func init() {
	kitServers["echo-secrets"] = &mcptest.Server{Tools: []mcptest.Tool{kitEcho,
		{Name: "echo-env", Handler: func(context.Context, *mcptest.Call) (*messages.CallToolResult, error) {
			v := os.Getenv("SERVICE_TOKEN")
			fmt.Fprintf(os.Stderr, "echo-env: SERVICE_TOKEN=%s\n", v)
			data, _ := json.Marshal(map[string]string{"SERVICE_TOKEN": v})
			return nil, &mcptest.RPCError{Code: -32000, Message: "refused with SERVICE_TOKEN=" + v, Data: data}
		}},
	}}
}

// rpcEchoServer answers every POST with a JSON-RPC error whose message and
// data quote the request's credentials and its URL's path and query, as a
// server that reports what it was sent when it refuses does. It answers
// nothing else (405).
func rpcEchoServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted) // a notification
			return
		}
		said := fmt.Sprintf("Authorization=%s X-Api-Key=%s path=%s query=%s", r.Header.Get("Authorization"),
			r.Header.Get("X-Api-Key"), r.URL.Path, r.URL.RawQuery)
		data, _ := json.Marshal(map[string]string{"said": said})
		msg, _ := json.Marshal("refused: " + said)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":%s,"data":%s}}`, req.ID, msg, data)
	}))
}

// pathEchoingServer answers every request 404 with a body that quotes the
// URL's path after pad bytes: with the right pad, the key in the path
// straddles the cut of the body's excerpt (200 bytes), which the
// transport, knowing only the headers' values, cannot mask before it
// cuts.
func pathEchoingServer(pad int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, "%s no such path %s", strings.Repeat("x", pad), r.URL.Path)
	}))
}

// pathKeyConfig reaches base with every HTTP secret planted, a key in its
// path and a ${VAR}-supplied part in its query.
func pathKeyConfig(base string) mcpactor.ServerConfig {
	cfg := secretHTTPConfig(base)
	// What the configuration file's ${TENANT} expansion notes
	// (supervisor/config).
	redact.Expanded(secretExpanded)
	cfg.URL = strings.Replace(cfg.URL, "/mcp?", "/mcp/"+secretPathKey+"/stream?tenant="+secretExpanded+"&", 1)
	return cfg
}

// unparsableConfig has a URL whose password holds a '/'.
func unparsableConfig() mcpactor.ServerConfig {
	return mcpactor.ServerConfig{URL: "http://svc:" + secretUnparsable + "@127.0.0.1:1/mcp"}
}

// outputs gathers everything the runtime produced that a person or a
// system other than the server may read.
type outputs struct {
	mu   sync.Mutex
	logs bytes.Buffer
	text []string // errors, statuses, events
}

func (o *outputs) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.logs.Write(b)
}

// has reports whether a line or text gathered so far contains s.
func (o *outputs) has(s string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, t := range o.text {
		if strings.Contains(t, s) {
			return true
		}
	}
	return strings.Contains(o.logs.String(), s)
}

func (o *outputs) add(what string, v any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.text = append(o.text, fmt.Sprintf("%s: %v", what, v))
}

// check fails t for each planted secret found anywhere, saying where.
func (o *outputs) check(t *testing.T, spans []string) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	channels := map[string][]string{"log": strings.Split(o.logs.String(), "\n"), "returned or reported": o.text, "span": spans}
	for name, lines := range channels {
		for _, line := range lines {
			for _, s := range plantedSecrets {
				// The start of one too: a secret cut where an excerpt
				// ends must not show its first half.
				if strings.Contains(line, s[:11]) {
					t.Errorf("secret %s leaked (whole or in part) into a %s: %s", s, name, line)
				}
			}
		}
	}
}

// reflectingServer answers every request 500 with a body that repeats the
// request's credentials, as a debugging proxy or a careless server does.
func reflectingServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "upstream refused: Authorization=%q X-Api-Key=%q\n", r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
	}))
}

// echoingServer answers every request 401 with a body that quotes the
// bearer token alone, without its scheme, as an API's "invalid token"
// does; pad puts the token where the body's excerpt is cut (200 bytes).
func echoingServer(pad int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "%s invalid token %s", strings.Repeat("x", pad), token)
	}))
}

// closedURL is an http URL on a loopback port nobody listens on.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// secretHTTPConfig reaches base with every HTTP secret planted.
func secretHTTPConfig(base string) mcpactor.ServerConfig {
	u := strings.Replace(base, "http://", "http://svc:"+secretUserinfo+"@", 1) + "/mcp?api_key=" + secretQuery + "&region=eu"
	return mcpactor.ServerConfig{URL: u, ConnectTimeout: 5 * time.Second,
		Headers: map[string]string{"Authorization": "Bearer " + secretBearer, "X-Api-Key": secretAPIKey}}
}

// secretStdioConfig is the kit's leaky server with the env secret
// planted; it prints the secret when asked (send-raw on stdout, crash on
// stderr).
func secretStdioConfig() mcpactor.ServerConfig {
	cfg := mcptest.Stdio("leaky")
	cfg.Env["SERVICE_TOKEN"] = secretEnv
	return cfg
}

func TestNoSecretInAnyOutput(t *testing.T) {
	t.Parallel()
	var out outputs
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tr := newTracedOpts(t, mcpactor.Options{Logger: logger, StderrLine: func(_, line string) { out.add("stderr line", line) }},
		func(o *telemetry.Options) { o.RecordToolArguments = true })
	ctx := waitCtx(t)

	// HTTP: a server that refuses and reflects the credentials, and a URL
	// nobody answers (the dial error quotes the URL in Go's own text).
	reflecting := reflectingServer()
	defer reflecting.Close()
	echoing := echoingServer(0)
	defer echoing.Close()
	straddling := echoingServer(190 - len(" invalid token "))
	defer straddling.Close()
	for name, base := range map[string]string{"reflecting": reflecting.URL, "refused": closedURL(t),
		"echoing": echoing.URL, "straddling": straddling.URL} {
		_, err := tr.rt.Connect(ctx, name, secretHTTPConfig(base))
		if err == nil {
			t.Fatalf("Connect(%s) succeeded", name)
		}
		out.add("Connect("+name+")", err)
	}
	// A server that answers JSON-RPC errors quoting the headers, the path
	// (with its key) and the query (with the ${VAR} part); and the same
	// URL refused. The error keeps what it is for errors.As.
	rpcEcho := rpcEchoServer()
	defer rpcEcho.Close()
	straddlingPath := pathEchoingServer(200 - len(" no such path /mcp/") - 12)
	defer straddlingPath.Close()
	for name, base := range map[string]string{"rpc-echo": rpcEcho.URL, "path-refused": closedURL(t), "path-straddling": straddlingPath.URL} {
		cfg := pathKeyConfig(base)
		out.add("config", fmt.Sprintf("%v", cfg))
		logger.Info("config", "cfg", cfg)
		_, err := tr.rt.Connect(ctx, name, cfg)
		if err == nil {
			t.Fatalf("Connect(%s) succeeded", name)
		}
		out.add("Connect("+name+")", err)
		var rpc *mcpactor.RPCError
		if errors.As(err, &rpc) {
			out.add("RPCError", fmt.Sprintf("%+v %s", rpc, rpc.Data))
		} else if name == "rpc-echo" {
			t.Errorf("Connect(rpc-echo) = %v, want the server's *RPCError", err)
		}
	}
	// A URL that does not parse, printed, logged and refused.
	bad := unparsableConfig()
	out.add("config", fmt.Sprintf("%v %+v %#v", bad, bad, bad))
	logger.Info("config", "cfg", bad)
	if _, err := tr.rt.Connect(ctx, "unparsable", bad); err == nil {
		t.Fatal("Connect(unparsable) succeeded")
	} else {
		out.add("Connect(unparsable)", err)
	}

	// stdio: a server that prints its secret on stdout, then on stderr as
	// it crashes with a call in flight.
	c, err := tr.rt.Connect(ctx, "leaky", secretStdioConfig())
	if err != nil {
		t.Fatal(err)
	}
	callOK(t, c, "send-raw", map[string]any{"lines": []string{"debug: token=" + secretEnv,
		// The secret across the cut of a skipped line (256 bytes) and of
		// a malformed line's log (120 bytes).
		strings.Repeat("s", 250) + secretEnv,
		"[" + strings.Repeat(" ", 114) + secretEnv + "]"}})
	_, err = c.CallTool(ctx, "crash", nil) // exit 1, "fatal: bad token <secret>" on stderr
	if err == nil {
		t.Fatal("the crash call succeeded")
	}
	out.add("CallTool(crash)", err)
	deadline := time.Now().Add(waitLimit)
	for c.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	out.add("Err", c.Err())

	// stdio: a server that quotes its env in a JSON-RPC error and on
	// stderr; and a tool result holding the secret, which is the caller's
	// data and reaches it unchanged, but no span.
	cfg := mcptest.Stdio("echo-secrets")
	cfg.Env["SERVICE_TOKEN"] = secretEnv
	e, err := tr.rt.Connect(ctx, "echo-secrets", cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.CallTool(ctx, "echo-env", nil)
	var rpc *mcpactor.RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32000 {
		t.Fatalf("CallTool(echo-env) = %v, want the server's *RPCError", err)
	}
	out.add("CallTool(echo-env)", fmt.Sprintf("%v %+v %s", err, rpc, rpc.Data))
	if res := callOK(t, e, "echo", map[string]any{"message": "token " + secretEnv}); !strings.Contains(resultText(res), secretEnv) {
		t.Errorf("a tool result was changed: %q", resultText(res))
	}
	deadline = time.Now().Add(waitLimit)
	for !out.has("echo-env: SERVICE_TOKEN=") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !out.has("echo-env: SERVICE_TOKEN=") {
		t.Error("the echo-env stderr line never arrived: the check would prove nothing")
	}

	// A manager: statuses and events of the same servers.
	m, err := tr.rt.Manage(ctx, mcpactor.ManageOptions{
		Servers: map[string]mcpactor.ServerConfig{
			"m-reflecting": secretHTTPConfig(reflecting.URL),
			"m-refused":    secretHTTPConfig(closedURL(t)),
			"m-rpc-echo":   pathKeyConfig(rpcEcho.URL),
			"m-unparsable": unparsableConfig(),
		},
		NoCache: true,
		OnEvent: func(e mcpactor.ManagerEvent) { out.add("event", fmt.Sprintf("%+v %v", e, e.Err)) },
	})
	if err != nil {
		out.add("Manage", err)
	}
	if m != nil {
		deadline := time.Now().Add(waitLimit)
		for {
			failing := 0
			for _, s := range m.Status() {
				if s.LastError != nil {
					failing++
				}
			}
			if failing == 3 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, s := range m.Status() {
			out.add("Status", fmt.Sprintf("%+v %v", s, s.LastError))
		}
		_, err = m.CallTool(ctx, "mcp__m-refused__anything", nil)
		out.add("Manager.CallTool", err)
		out.add("Warnings", m.Warnings())
		out.add("Invalid", fmt.Sprintf("%v", m.Invalid()))
		m.Close(context.WithoutCancel(ctx))
	}

	var spans []string
	for _, s := range tr.spans.Ended() {
		line := fmt.Sprintf("%s %v %s %v", s.Name(), s.Attributes(), s.Status().Description, s.Events())
		spans = append(spans, line)
	}
	if len(spans) == 0 {
		t.Fatal("no span recorded: the check would prove nothing")
	}
	out.check(t, spans)
}
