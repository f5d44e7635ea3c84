package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/messages"
)

// serverName names the i-th server of a bring-up.
func serverName(i int) string { return fmt.Sprintf("s%03d", i) }

// listing is what one server's tools/list gave a client: how many tools,
// whether echo was among them, or why the bring-up of that server failed.
type listing struct {
	tools int
	echo  bool
	err   error
}

// errPaginated is a tools/list answer with a next page, which the minimal
// client does not read (the servers measured answer in one page).
var errPaginated = errors.New("tools/list is paginated; the minimal client reads one page")

// fleet is the n sessions one client brought up. Every client keeps the
// tool lists it received, in its own representation, as an application
// that brings servers up to use their tools does.
type fleet interface {
	listings() []listing
	close(ctx context.Context) error
}

// upFunc brings up n servers concurrently and returns when every one of
// them has answered tools/list (or failed).
type upFunc func(ctx context.Context, s measure.StdioServer, n int) (fleet, error)

type driver struct {
	name  string
	label string // for the report
	up    upFunc
	extra bool // not among the default clients: a diagnostic
}

var drivers = []driver{
	{"manage", "mcpactor `rt.Manage` (MaxConnecting default, 8)", upManage(0), false},
	{"manage-all", "mcpactor `rt.Manage` (MaxConnecting = servers)", upManage(-1), false},
	{"connect", "mcpactor `rt.Connect` ×N concurrently", upConnect(""), false},
	{"connect-pinned", "mcpactor `rt.Connect` ×N, ProtocolVersion 2025-11-25 (no server/discover probe)", upConnect("2025-11-25"), true},
	{"gosdk", "go-sdk, one session per server", upGoSDK, false},
	{"mcpgo", "mcp-go, one client per server", upMcpGo, false},
	{"wire", "hand-written minimal client", upWire, false},
}

func driverByName(name string) (driver, bool) {
	for _, d := range drivers {
		if d.name == name {
			return d, true
		}
	}
	return driver{}, false
}

// driverNames are the clients' names; all, or the default ones.
func driverNames(all bool) []string {
	var names []string
	for _, d := range drivers {
		if all || !d.extra {
			names = append(names, d.name)
		}
	}
	return names
}

// each runs f(i) for i in [0, n) on n goroutines and waits for them.
func each(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}

func listingOf(names []string, err error) listing {
	if err != nil {
		return listing{err: err}
	}
	l := listing{tools: len(names)}
	for _, n := range names {
		if n == "echo" {
			l.echo = true
		}
	}
	return l
}

// --- mcpactor: Runtime.Manage ---

type manageFleet struct {
	rt *mcpactor.Runtime
	m  *mcpactor.Manager
	n  int
}

// upManage starts n servers under one manager, without the tool-list
// cache. maxConnecting 0 keeps the default bound on handshakes in flight;
// -1 lifts it to n.
func upManage(maxConnecting int) upFunc {
	return func(ctx context.Context, s measure.StdioServer, n int) (fleet, error) {
		rt, err := mcpactor.Start(mcpactor.Options{})
		if err != nil {
			return nil, err
		}
		servers := make(map[string]mcpactor.ServerConfig, n)
		for i := range n {
			servers[serverName(i)] = mcpactor.ServerConfig{Command: s.Path, Args: s.Args, Env: s.EnvMap}
		}
		mc := maxConnecting
		if mc < 0 {
			mc = n
		}
		m, err := rt.Manage(ctx, mcpactor.ManageOptions{Servers: servers, NoCache: true, MaxConnecting: mc})
		if err != nil {
			_ = rt.Stop(ctx)
			return nil, err
		}
		return &manageFleet{rt: rt, m: m, n: n}, nil
	}
}

func (f *manageFleet) listings() []listing {
	byServer := make(map[string][]string)
	for _, t := range f.m.ListTools() {
		if !t.Cached {
			byServer[t.Server] = append(byServer[t.Server], t.Tool.Name)
		}
	}
	status := make(map[string]mcpactor.ServerStatus)
	for _, st := range f.m.Status() {
		status[st.Name] = st
	}
	out := make([]listing, f.n)
	for i := range out {
		name := serverName(i)
		st, ok := status[name]
		switch {
		case !ok:
			out[i] = listing{err: fmt.Errorf("%s: not managed", name)}
		case st.State != mcpactor.StateReady:
			out[i] = listing{err: fmt.Errorf("%s: state %v: %v", name, st.State, st.LastError)}
		default:
			out[i] = listingOf(byServer[name], nil)
		}
	}
	return out
}

func (f *manageFleet) close(ctx context.Context) error { return f.rt.Stop(ctx) }

// --- clients with a session per server ---

// session is what a client keeps of one server it brought up (its tools
// among it), and how it closes it.
type session interface {
	comparable
	close() error
}

// sessions is the fleet of a client that keeps a session per server. upEach
// brings each server up with start, all at once, on goroutines of their
// own; start returns the session (also when listing its tools failed, so
// that it is closed), the names of the server's tools, or why it failed.
type sessions[S session] struct {
	ss []S // the zero S where start did not get as far as a session
	ls []listing
}

func upEach[S session](n int, start func(i int) (S, []string, error)) *sessions[S] {
	f := &sessions[S]{ss: make([]S, n), ls: make([]listing, n)}
	each(n, func(i int) {
		s, names, err := start(i)
		f.ss[i], f.ls[i] = s, listingOf(names, err)
	})
	return f
}

func (f *sessions[S]) listings() []listing { return f.ls }

// close closes every session at once.
func (f *sessions[S]) close(context.Context) error {
	var none S
	errs := make([]error, len(f.ss))
	each(len(f.ss), func(i int) {
		if f.ss[i] != none {
			errs[i] = f.ss[i].close()
		}
	})
	return errors.Join(errs...)
}

// --- mcpactor: Runtime.Connect, n at once ---

// connectFleet is n connections of one runtime, each made with
// Runtime.Connect and then ListTools; the runtime's Stop closes them.
type connectFleet struct {
	*sessions[*connectSession]
	rt *mcpactor.Runtime
}

type connectSession struct {
	c     *mcpactor.Client
	tools []messages.Tool
}

func (*connectSession) close() error { return nil } // Runtime.Stop closes it

func (f *connectFleet) close(ctx context.Context) error { return f.rt.Stop(ctx) }

// upConnect connects n servers at once; version, when set, pins the
// protocol version (which skips the server/discover probe).
func upConnect(version string) upFunc {
	return func(ctx context.Context, s measure.StdioServer, n int) (fleet, error) {
		rt, err := mcpactor.Start(mcpactor.Options{})
		if err != nil {
			return nil, err
		}
		cfg := mcpactor.ServerConfig{Command: s.Path, Args: s.Args, Env: s.EnvMap, ProtocolVersion: version}
		ss := upEach(n, func(i int) (*connectSession, []string, error) {
			c, err := rt.Connect(ctx, serverName(i), cfg)
			if err != nil {
				return nil, nil, err
			}
			tools, err := c.ListTools(ctx)
			names := make([]string, len(tools))
			for j, t := range tools {
				names[j] = t.Name
			}
			return &connectSession{c: c, tools: tools}, names, err
		})
		return &connectFleet{sessions: ss, rt: rt}, nil
	}
}

// --- github.com/modelcontextprotocol/go-sdk: one client, a session per server ---

type goSDKSession struct {
	s     *gosdk.ClientSession
	tools []*gosdk.Tool
}

func (g *goSDKSession) close() error { return g.s.Close() }

func upGoSDK(ctx context.Context, s measure.StdioServer, n int) (fleet, error) {
	c := gosdk.NewClient(&gosdk.Implementation{Name: "bringup", Version: "0.0.1"}, nil)
	return upEach(n, func(int) (*goSDKSession, []string, error) {
		sess, err := c.Connect(ctx, &gosdk.CommandTransport{Command: s.Command()}, nil)
		if err != nil {
			return nil, nil, err
		}
		g := &goSDKSession{s: sess}
		var names []string
		for t, err := range sess.Tools(ctx, nil) {
			if err != nil {
				return g, nil, err
			}
			g.tools = append(g.tools, t)
			names = append(names, t.Name)
		}
		return g, names, nil
	}), nil
}

// --- github.com/mark3labs/mcp-go: a client per server ---

type mcpGoSession struct {
	c     *mcpgoclient.Client
	tools []mcpgo.Tool
}

func (m *mcpGoSession) close() error { return m.c.Close() }

func upMcpGo(ctx context.Context, s measure.StdioServer, n int) (fleet, error) {
	return upEach(n, func(int) (*mcpGoSession, []string, error) {
		// mcp-go appends env to os.Environ(); s.Env is a full environment,
		// so the child sees the same variables.
		c, err := mcpgoclient.NewStdioMCPClient(s.Path, s.Env, s.Args...)
		if err != nil {
			return nil, nil, err
		}
		m := &mcpGoSession{c: c}
		_, err = c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
			ProtocolVersion: mcpgo.LATEST_PROTOCOL_VERSION,
			ClientInfo:      mcpgo.Implementation{Name: "bringup", Version: "0.0.1"},
		}})
		if err != nil {
			return m, nil, err
		}
		var names []string
		var cursor mcpgo.Cursor
		for page := 0; ; page++ {
			req := mcpgo.ListToolsRequest{}
			req.Params.Cursor = cursor
			res, err := c.ListTools(ctx, req)
			if err != nil {
				return m, nil, err
			}
			m.tools = append(m.tools, res.Tools...)
			for _, t := range res.Tools {
				names = append(names, t.Name)
			}
			if res.NextCursor == "" || page > 100 {
				return m, names, nil
			}
			cursor = res.NextCursor
		}
	}), nil
}
