package main

import (
	"os"
	"os/exec"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// scenario is one of the runtime's scales: what its sessions connect to,
// and how each client holds them.
type scenario struct {
	name string
	// server names what the sessions connect to, in the results.
	server string
	// calls says whether calls are spread over the sessions after the
	// memory is read.
	calls bool
	// clients are the clients' names in the report's order, the
	// hand-written reference last; up brings each one's sessions up.
	clients   []string
	up        map[string]upFunc
	reference string
	// start starts what the sessions connect to, in the measurement's
	// process; stop stops it.
	start func(sp spec) (env *environment, stop func(), err error)
}

// The scenarios, by the names -scenarios takes.
const (
	// scenarioRest: stdio servers (the fast server) at rest, mcpactor's
	// Manager beside each peer holding as many sessions.
	scenarioRest = "rest"
	// scenarioStdio: stdio servers (the fast server) under one Manager,
	// then calls spread over all of them.
	scenarioStdio = "stdio"
	// scenarioHTTP: Streamable HTTP sessions to one server (mcpactor's
	// test server in HTTP mode, a process of its own), one per identity,
	// then calls spread over all of them.
	scenarioHTTP = "http"
)

// The names of what the sessions connect to, in the results.
const (
	serverFast = measure.ServerFast
	serverHTTP = "testserver-http"
)

var stdioUp = map[string]upFunc{
	measure.OursName:     upManage,
	"gosdk":              upGoSDK,
	"mcpgo":              upMcpGo,
	measure.BlockingName: upBlocking,
}

var stdioClients = []string{measure.OursName, "gosdk", "mcpgo", measure.BlockingName}

var scenarios = []scenario{
	{name: scenarioRest, server: serverFast, clients: stdioClients, up: stdioUp, reference: measure.BlockingName, start: startStdio},
	{name: scenarioStdio, server: serverFast, calls: true, clients: stdioClients, up: stdioUp, reference: measure.BlockingName, start: startStdio},
	{
		name: scenarioHTTP, server: serverHTTP, calls: true,
		clients: []string{measure.OursName, listeningName, "gosdk", "mcpgo", measure.WireName},
		up: map[string]upFunc{
			measure.OursName: upConnect,
			listeningName:    upConnectListening,
			"gosdk":          upGoSDK,
			"mcpgo":          upMcpGo,
			measure.WireName: upWire,
		},
		reference: measure.WireName, start: startHTTP,
	},
}

func scenarioByName(name string) (scenario, bool) {
	for _, s := range scenarios {
		if s.name == name {
			return s, true
		}
	}
	return scenario{}, false
}

func scenarioNames() []string {
	var names []string
	for _, s := range scenarios {
		names = append(names, s.name)
	}
	return names
}

// startStdio is the fast server's command: its own binary when the parent
// built one (bench/cmd/fastserver), else this program re-executed as it.
func startStdio(sp spec) (*environment, func(), error) {
	s := measure.StdioServerOf(measure.ServerFast, "")
	if sp.ServerPath != "" {
		s = measure.NewStdioServer(sp.ServerPath, nil, os.Environ())
	}
	return &environment{stdio: s}, func() {}, nil
}

// startHTTP starts mcpactor's test server in HTTP mode (this program
// re-executed as it) and reads its URL.
func startHTTP(spec) (*environment, func(), error) {
	path, args, env := testserver.Command(testserver.Options{HTTPAddr: "127.0.0.1:0"})
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stderr = os.Stderr
	p, url, err := measure.StartHTTPProc(cmd, 30*time.Second)
	if err != nil {
		return nil, nil, err
	}
	return &environment{url: url}, func() { _ = p.Stop(5 * time.Second) }, nil
}
