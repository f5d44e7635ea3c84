package mcptest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// Server is a fake MCP server. Its zero value is a well-behaved server
// offering nothing; set the fields before the first connection and leave
// them alone afterwards: SetTools, SetResources, SetResourceTemplates and
// SetPrompts change the lists while clients are connected, and Notify
// reaches them outside any call. A Server serves any number of
// connections, one after another or at once (each generation of a client
// is one, and InProcess, StartHTTP and Stdio can be mixed), and remembers
// what all of them received. It must not be copied once used.
type Server struct {
	// Name and Version are serverInfo in the initialize result; empty
	// means "mcptest" and "0.0.0".
	Name, Version string
	// Instructions is the initialize result's instructions; "" omits it.
	Instructions string

	// Tools are what tools/list lists, in this order.
	Tools []Tool
	// Resources are what resources/list lists and resources/read reads.
	Resources []Resource
	// ResourceTemplates are what resources/templates/list lists; a
	// resources/read of a URI no Resource has goes to the first template
	// that matches it.
	ResourceTemplates []ResourceTemplate
	// Prompts are what prompts/list lists and prompts/get gets.
	Prompts []Prompt
	// Complete, when set, answers completion/complete
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion),
	// which the server then declares (the completions capability); nil
	// leaves the method out: Client.Complete returns *mcpactor.RPCError
	// -32601 (errors.Is mcpactor.ErrRPC). An *RPCError it returns is the
	// answer; any other error is answered -32602 (invalid params) with
	// its text. It runs on a goroutine of its own, and ctx ends when the
	// client cancels.
	Complete func(ctx context.Context, p messages.CompleteParams) (*messages.Completion, error)

	// PageSize, when > 0, splits tools/list, resources/list,
	// resources/templates/list and prompts/list into pages of at most
	// this many entries, each but the last with a nextCursor
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination);
	// a cursor the server did not give is answered -32602. An mcpactor
	// client follows the cursors: ListTools and the like return every
	// page, Client.Tools fetches the next page only when its loop gets
	// there.
	PageSize int

	// Stateless makes the server speak the 2026-07-28 revision too, by
	// every way but legacy SSE: server/discover offers it, so a runtime
	// that leaves ServerConfig.ProtocolVersion empty speaks it, without
	// initialize or session; and a Call's requests to the
	// client (CreateMessage, Elicit, ListRoots, Ask) become multi
	// round-trips: the call is answered input_required and goes on when
	// the client retries it with the answers
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
	// Final results of that revision carry resultType "complete", as its
	// servers must. Session-era clients still initialize.
	Stateless bool
	// CacheTTL and CacheScope, on a Stateless server, are the caching
	// hints (ttlMs, cacheScope) its 2026-07-28 lists and resources/read
	// results carry
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching);
	// zero sends none.
	CacheTTL   time.Duration
	CacheScope string

	// Fault applies to every tool call, under the tool's own Fault: a
	// field the tool sets wins.
	Fault Fault
	// Faults are the server's faults that are not about one call.
	Faults Faults

	hub      testserver.Hub // the servers running now, for Notify and Set*
	mu       sync.Mutex
	log      []Message
	closed   []Cancellation // requests cancelled by closing their stream
	crashes  map[string]int // calls that met a Crash, by where it is declared ("" for Server.Fault)
	stderr   bytes.Buffer
	conns    sync.WaitGroup
	closing  chan struct{}
	shutdown sync.Once
}

// Tool is one tool of a Server.
type Tool struct {
	// Name is what tools/list and tools/call name it by.
	Name        string
	Description string
	// InputSchema is the JSON Schema of the arguments: a json.RawMessage
	// or a string holding it, or any other value that encodes to it (a
	// map, a struct). nil means
	// {"type":"object"}, a tool without arguments. The server does not
	// validate arguments against it: Handler sees what the client sent.
	InputSchema any
	// OutputSchema, when set, is listed as the tool's outputSchema
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema).
	OutputSchema any
	// Handler answers a call. An error is answered as a tool error (a
	// result with isError set and the error's text), which a client sees
	// as CallToolResult.IsError with a nil error; an *RPCError is
	// answered as a JSON-RPC error instead, which a client returns as
	// *mcpactor.RPCError (errors.Is mcpactor.ErrRPC). A nil Handler
	// answers an empty result.
	//
	// Handler runs on a goroutine of its own, and ctx ends when the
	// client cancels the call (notifications/cancelled), or the
	// connection ends. A panic in it is answered as a JSON-RPC internal
	// error (-32603), and the server goes on.
	Handler func(ctx context.Context, call *Call) (*messages.CallToolResult, error)
	// Fault is this tool's misbehaviour.
	Fault Fault
	// Task makes the tool a task of the 2026-07-28 tasks extension on a
	// Stateless server
	// (https://modelcontextprotocol.github.io/ext-tasks/specification/draft/tasks.html):
	// a call from a client that declares the extension is answered at
	// once with a task (resultType "task") while Handler runs in the
	// background; tasks/get reports it, with the result or the error
	// once Handler returns; the Call's requests to the client (Elicit,
	// CreateMessage, ListRoots, Ask) wait as the task's inputRequests
	// (status input_required) for tasks/update; tasks/cancel ends
	// Handler's ctx. The server declares the extension. A client that
	// does not declare it is refused -32021. Session-era calls and
	// servers that are not Stateless run the tool plainly.
	Task bool
}

// Resource is one resource of a Server, listed by resources/list and read
// by resources/read at its URI: its Text, or its Blob when Text is empty.
// A URI the Server has neither as a Resource nor under a ResourceTemplate
// is answered -32002 (Resource not found): Client.ReadResource returns
// *mcpactor.RPCError (errors.Is mcpactor.ErrRPC) with that code.
type Resource struct {
	URI, Name, MimeType string
	Text                string
	Blob                []byte
}

// ResourceTemplate is a family of resources of a Server, listed by
// resources/templates/list
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#resource-templates).
type ResourceTemplate struct {
	// URITemplate is an RFC 6570 template such as "file:///logs/{day}".
	// resources/read matches a URI against its literal text and its
	// expressions: {name} matches a non-empty run of characters without
	// "/", {+name} any non-empty run; other operators are listed but
	// never match.
	URITemplate       string
	Name, Description string
	MimeType          string
	// Read answers resources/read for a URI the template matches, with
	// the values of its expressions by name. An *RPCError it returns is
	// the answer; any other error is answered -32603 (internal error),
	// and a nil result -32002 (Resource not found): the client returns
	// either as *mcpactor.RPCError. nil answers one text content naming
	// the URI. It runs on a goroutine of its own, and ctx ends when the
	// client cancels.
	Read func(ctx context.Context, uri string, vars map[string]string) (*messages.ReadResourceResult, error)
}

// Prompt is one prompt of a Server.
type Prompt struct {
	Name, Description string
	Arguments         []messages.PromptArgument
	// Get answers prompts/get with the arguments the client sent; its
	// errors are answered -32602 (invalid params). It runs on a goroutine
	// of its own, and ctx ends when the client cancels. nil answers one
	// user message holding the Description.
	Get func(ctx context.Context, args map[string]string) (*messages.GetPromptResult, error)
}

// RPCError is a JSON-RPC error: a Handler returns one to answer with it,
// and Call.Ask returns the client's as one.
type RPCError struct {
	Code    int
	Message string
	Data    json.RawMessage
}

// Error implements error.
func (e *RPCError) Error() string {
	return fmt.Sprintf("mcptest: JSON-RPC error %d: %s", e.Code, e.Message)
}

// InProcess returns a configuration reaching s in this process, over a
// net.Pipe (ServerConfig.Dial): no process, no port. Each connection
// generation gets a fresh connection to the same Server. Crashes end
// the connection (the client sees the stream end); what they write to
// stderr is in Stderr.
func (s *Server) InProcess() mcpactor.ServerConfig {
	return mcpactor.ServerConfig{Dial: s.Dial}
}

// Dial opens a connection to s: the client's end of a net.Pipe whose other
// end s serves with JSON Lines, as over stdio. It is InProcess's
// ServerConfig.Dial; a test may also speak to it directly. The
// connection ends when the client closes its end, when the server
// crashes, or at Close.
func (s *Server) Dial(context.Context) (io.ReadWriteCloser, error) {
	s.mu.Lock()
	closing := s.closingLocked()
	select {
	case <-closing:
		s.mu.Unlock()
		return nil, errors.New("mcptest: server closed")
	default:
	}
	s.conns.Add(1)
	s.mu.Unlock()

	ours, theirs := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer s.conns.Done()
		watched := make(chan struct{})
		go func() {
			// Close ends the connection; so does its end.
			defer close(watched)
			select {
			case <-closing:
				cancel()
			case <-ctx.Done():
			}
		}()
		_ = testserver.ServeSpec(ctx, theirs, theirs, stderrOf(s), s.options(), s.spec())
		_ = theirs.Close()
		cancel()
		<-watched
	}()
	return ours, nil
}

// Close ends every connection of s served in this process (InProcess and
// Dial; an HTTPServer has Close of its own) and waits for them. Later
// dials fail.
func (s *Server) Close() {
	s.mu.Lock()
	closing := s.closingLocked()
	s.mu.Unlock()
	s.shutdown.Do(func() { close(closing) })
	s.conns.Wait()
}

func (s *Server) closingLocked() chan struct{} {
	if s.closing == nil {
		s.closing = make(chan struct{})
	}
	return s.closing
}

// Stderr is what the server has written to stderr in this process so far
// (its first MiB): crash texts above all. A Stdio child's go to the
// client, which puts them in its errors.
func (s *Server) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// stderrWriter appends to a Server's stderr record.
type stderrWriter struct{ s *Server }

func stderrOf(s *Server) io.Writer { return stderrWriter{s} }

// maxStderr bounds what a Server keeps of its stderr.
const maxStderr = 1 << 20

func (w stderrWriter) Write(b []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.s.stderr.Write(b[:min(len(b), max(maxStderr-w.s.stderr.Len(), 0))])
	return len(b), nil
}

// spec declares s to the engine, with the lists s has now.
func (s *Server) spec() *testserver.Spec {
	s.mu.Lock()
	cat := s.catalogLocked()
	caps := s.capabilitiesLocked()
	s.mu.Unlock()
	spec := &testserver.Spec{
		Name:              cmp.Or(s.Name, "mcptest"),
		Version:           cmp.Or(s.Version, "0.0.0"),
		Instructions:      s.Instructions,
		Capabilities:      caps,
		Tools:             cat.Tools,
		Resources:         cat.Resources,
		ResourceTemplates: cat.ResourceTemplates,
		Prompts:           cat.Prompts,
		Observe:           s.record,
		Hub:               &s.hub,
		Methods: map[string]testserver.Method{
			"resources/read": s.readResource,
			"prompts/get":    s.getPrompt,
		},
		MethodsWait: true, // a Prompt's Get is the test's code: it may wait
	}
	if s.Complete != nil {
		spec.Methods["completion/complete"] = s.complete
	}
	return spec
}

// catalogLocked is the engine's form of s's lists.
func (s *Server) catalogLocked() *testserver.Catalog {
	c := &testserver.Catalog{}
	for i := range s.Tools {
		t := &s.Tools[i]
		c.Tools = append(c.Tools, &testserver.Tool{
			Name:         t.Name,
			Description:  t.Description,
			InputSchema:  schemaJSON(t.InputSchema, `{"type":"object"}`),
			OutputSchema: schemaJSON(t.OutputSchema, ""),
			Run:          s.runner(t),
			Waits:        true,
			Task:         t.Task,
		})
	}
	for _, r := range s.Resources {
		c.Resources = append(c.Resources, mustJSON(messages.Resource{URI: r.URI, Name: r.Name, MimeType: r.MimeType}))
	}
	for _, t := range s.ResourceTemplates {
		c.ResourceTemplates = append(c.ResourceTemplates, mustJSON(messages.ResourceTemplate{
			URITemplate: t.URITemplate, Name: t.Name, Description: t.Description, MimeType: t.MimeType}))
	}
	for _, p := range s.Prompts {
		c.Prompts = append(c.Prompts, mustJSON(messages.Prompt{Name: p.Name, Description: p.Description, Arguments: p.Arguments}))
	}
	return c
}

// capabilitiesLocked are the capabilities s declares at initialize (and
// server/discover): tools and logging always; resources, prompts and
// completions when it has some.
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation).
func (s *Server) capabilitiesLocked() json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"tools":{"listChanged":true},"logging":{}`)
	if len(s.Resources) > 0 || len(s.ResourceTemplates) > 0 {
		b.WriteString(`,"resources":{"subscribe":true,"listChanged":true}`)
	}
	if len(s.Prompts) > 0 {
		b.WriteString(`,"prompts":{"listChanged":true}`)
	}
	if s.Complete != nil {
		b.WriteString(`,"completions":{}`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// methodNotFound answers a method the Server offers nothing for now, as
// the engine answers those it does not know.
var methodNotFound = &testserver.RPCError{Code: -32601, Message: "Method not found"}

// readResource answers resources/read.
func (s *Server) readResource(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p messages.ReadResourceParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &testserver.RPCError{Code: -32602, Message: "Invalid params: " + err.Error()}
	}
	s.mu.Lock()
	resources, templates := s.Resources, s.ResourceTemplates
	s.mu.Unlock()
	if len(resources) == 0 && len(templates) == 0 {
		return nil, methodNotFound
	}
	// -32002 is the specification's "Resource not found"
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling).
	notFound := &testserver.RPCError{Code: -32002, Message: "Resource not found", Data: mustJSON(map[string]string{"uri": p.URI})}
	for _, r := range resources {
		if r.URI != p.URI {
			continue
		}
		c := messages.TextResource(r.URI, r.MimeType, r.Text)
		if r.Text == "" && r.Blob != nil {
			c = messages.BlobResource(r.URI, r.MimeType, r.Blob)
		}
		return json.Marshal(messages.ReadResourceResult{Contents: []messages.ResourceContents{c}})
	}
	for _, t := range templates {
		vars, ok := matchTemplate(t.URITemplate, p.URI)
		if !ok {
			continue
		}
		if t.Read == nil {
			return json.Marshal(messages.ReadResourceResult{Contents: []messages.ResourceContents{
				messages.TextResource(p.URI, t.MimeType, p.URI)}})
		}
		res, err := t.Read(ctx, p.URI, vars)
		if err != nil {
			return nil, engineError(err, -32603)
		}
		if res == nil {
			return nil, notFound
		}
		return json.Marshal(res)
	}
	return nil, notFound
}

// getPrompt answers prompts/get.
func (s *Server) getPrompt(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p messages.GetPromptParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &testserver.RPCError{Code: -32602, Message: "Invalid params: " + err.Error()}
	}
	s.mu.Lock()
	prompts := s.Prompts
	s.mu.Unlock()
	if len(prompts) == 0 {
		return nil, methodNotFound
	}
	for _, pr := range prompts {
		if pr.Name != p.Name {
			continue
		}
		if pr.Get == nil {
			return json.Marshal(messages.GetPromptResult{Description: pr.Description, Messages: []messages.PromptMessage{
				{Role: "user", Content: messages.TextContent(pr.Description)}}})
		}
		res, err := pr.Get(ctx, p.Arguments)
		if err != nil {
			return nil, &testserver.RPCError{Code: -32602, Message: err.Error()}
		}
		return json.Marshal(res)
	}
	return nil, &testserver.RPCError{Code: -32602, Message: "Invalid params: unknown prompt: " + p.Name}
}

// complete answers completion/complete.
func (s *Server) complete(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p messages.CompleteParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &testserver.RPCError{Code: -32602, Message: "Invalid params: " + err.Error()}
	}
	c, err := s.Complete(ctx, p)
	if err != nil {
		return nil, engineError(err, -32602)
	}
	if c == nil {
		c = &messages.Completion{}
	}
	return json.Marshal(messages.CompleteResult{Completion: *c})
}

// engineError is err as the engine answers it: an *RPCError as it is,
// any other error with code and its text.
func engineError(err error, code int) *testserver.RPCError {
	var rpcErr *RPCError
	if errors.As(err, &rpcErr) {
		return &testserver.RPCError{Code: rpcErr.Code, Message: rpcErr.Message, Data: rpcErr.Data}
	}
	return &testserver.RPCError{Code: code, Message: err.Error()}
}

// matchTemplate matches uri against an RFC 6570 template's literal text
// and its {name} (no "/") and {+name} (anything) expressions, and returns
// the values by name.
func matchTemplate(tmpl, uri string) (map[string]string, bool) {
	vars := map[string]string{}
	for tmpl != "" {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			return vars, tmpl == uri
		}
		lit := tmpl[:open]
		if !strings.HasPrefix(uri, lit) {
			return nil, false
		}
		uri = uri[len(lit):]
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			return nil, false
		}
		expr := tmpl[open+1 : open+end]
		tmpl = tmpl[open+end+1:]
		reserved := strings.HasPrefix(expr, "+")
		name := strings.TrimPrefix(expr, "+")
		if name == "" || strings.ContainsAny(name[:1], "#./;?&=,!@|") {
			return nil, false // an operator this matcher does not know
		}
		// The value runs to the next literal text (or the end).
		next := tmpl
		if i := strings.IndexByte(next, '{'); i >= 0 {
			next = next[:i]
		}
		n := len(uri)
		if next != "" {
			if n = strings.Index(uri, next); n < 0 {
				return nil, false
			}
		}
		val := uri[:n]
		if val == "" || (!reserved && strings.Contains(val, "/")) {
			return nil, false
		}
		vars[name] = val
		uri = uri[n:]
	}
	return vars, uri == ""
}

// schemaJSON encodes a schema given as a value; def when v is nil.
func schemaJSON(v any, def string) json.RawMessage {
	switch v := v.(type) {
	case nil:
		if def == "" {
			return nil
		}
		return json.RawMessage(def)
	case json.RawMessage:
		return v
	case []byte:
		return v
	case string:
		return json.RawMessage(v)
	}
	return mustJSON(v)
}

// mustJSON encodes what the package builds itself, or what a test
// declared; a value that cannot be encoded is the test's bug.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mcptest: encoding %T: %v", v, err))
	}
	return b
}
