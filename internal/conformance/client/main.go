// Command client is mcpactor's client for the MCP conformance suite
// (npm @modelcontextprotocol/conformance): the suite starts a fake server
// per scenario, runs this program with the server's URL as its last
// argument and the scenario's name in MCP_CONFORMANCE_SCENARIO, and judges
// what the program did on the wire. It exits 0 when its part of the
// scenario succeeded.
//
//	client [-v] URL
//
// `make test` runs it for each scenario (see the Makefile, "conformance").
// Scenarios:
//
//   - initialize: connect (the runtime's protocol probe, then initialize) and
//     close;
//   - tools_call: list the tools and call add_numbers;
//   - sse-retry: call a tool whose SSE stream the server breaks: the
//     runtime resumes it with Last-Event-ID after the server's retry: delay;
//   - elicitation-sep1034-client-defaults: accept an elicitation with an
//     empty form; the runtime fills in the schema's defaults (SEP-1034);
//   - auth/*: the same as any other, with the server's authorization
//     (transport/oauth) configured from MCP_CONFORMANCE_CONTEXT (auth.go);
//   - a scenario whose context lists toolCalls (http-custom-headers): list
//     the tools (their x-mcp-header annotations), then make each call as
//     given (scenarios.go);
//   - sep-2322-client-request-state: call each of the scenario's tools,
//     two of them at once, so that one's multi round-trip state could
//     leak into the other (scenarios.go);
//   - json-schema-2020-12-preservation: send the focal tool's inputSchema
//     back, as received, to the echo tool (scenarios.go);
//   - json-schema-ref-no-deref: list the tools, and nothing else;
//   - sep-2640-client-no-prefetch: list the skills and read none of them
//     (skills.go);
//   - sep-2640-client-verify-digest, -verify-size, -verify-frontmatter:
//     load each listed skill, verified against its entry, and read the
//     other files only of a skill that passed (skills.go);
//   - any other: connect, list the tools, call the first one.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

func main() {
	verbose := flag.Bool("v", false, "log the runtime's debug events to stderr")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: client [-v] URL (the scenario in MCP_CONFORMANCE_SCENARIO)")
		os.Exit(2)
	}
	url := flag.Arg(flag.NArg() - 1)
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, scenario, url, log); err != nil {
		fmt.Fprintf(os.Stderr, "scenario %s: %v\n", scenario, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, scenario, url string, log *slog.Logger) error {
	rt, err := mcpactor.Start(mcpactor.Options{
		ClientInfo: messages.Implementation{Name: "mcpactor-conformance", Version: "0.1.0"},
		Logger:     log,
		Handlers:   handlers(scenario),
	})
	if err != nil {
		return err
	}
	defer func() {
		stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		rt.Stop(stop)
	}()
	cfg := mcpactor.ServerConfig{URL: url, ConnectTimeout: 15 * time.Second}
	auth, err := authFor(scenario, url)
	if err != nil {
		return err
	}
	if auth != nil {
		cfg.Auth = auth
	}
	c, err := rt.Connect(ctx, "conformance", cfg)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	log.Info("connected", "version", c.ProtocolVersion(), "server", c.ServerInfo().Name)
	switch scenario {
	case "initialize":
		return nil
	case "tools_call":
		return callTool(ctx, c, "add_numbers", map[string]any{"a": 2, "b": 3}, "5")
	case "sse-retry":
		return callTool(ctx, c, "test_reconnection", nil, "")
	case "elicitation-sep1034-client-defaults":
		return callTool(ctx, c, "test_client_elicitation_defaults", nil, "")
	case "sep-2322-client-request-state":
		return requestState(ctx, c)
	case "json-schema-2020-12-preservation":
		return echoSchema(ctx, c)
	case "json-schema-ref-no-deref":
		_, err := c.ListTools(ctx)
		return err
	case "sep-2640-client-no-prefetch":
		return listSkills(ctx, c)
	case "sep-2640-client-verify-digest", "sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter":
		return loadSkills(ctx, c)
	}
	if calls, err := contextToolCalls(); err != nil || len(calls) > 0 {
		if err != nil {
			return err
		}
		return makeToolCalls(ctx, c, calls)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if len(tools) > 0 {
		return callTool(ctx, c, tools[0].Name, map[string]any{}, "")
	}
	return nil
}

// handlers answer what the scenarios ask of a client: an elicitation is
// accepted with an empty form, so that every field is one the runtime
// fills from the schema's defaults.
func handlers(string) mcpactor.Handlers {
	return mcpactor.Handlers{
		Elicitation: func(context.Context, string, *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{}}, nil
		},
	}
}

// callTool calls a tool and checks that it succeeded (and that its text
// contains want, when set).
func callTool(ctx context.Context, c *mcpactor.Client, name string, args any, want string) error {
	res, err := c.CallTool(ctx, name, args)
	if err != nil {
		return fmt.Errorf("tools/call %s: %w", name, err)
	}
	if res.IsError {
		return errors.New("tools/call " + name + " answered with a tool error")
	}
	if want != "" {
		for _, ct := range res.Content {
			if ct.Type == "text" && contains(ct.Text, want) {
				return nil
			}
		}
		return fmt.Errorf("tools/call %s: no text with %q in %+v", name, want, res.Content)
	}
	return nil
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
