package cluster

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpactor/mcpactor/messages"
)

// SessionInfo describes an identity's current session.
type SessionInfo struct {
	Identity   Identity `json:"identity"`
	Member     string   `json:"member"`
	Generation int64    `json:"generation"`
	// Connection is the number of the owner's connection to the server
	// within this generation: 1, and one more for each restart by the
	// owner's manager (the ownership, hence Generation, is unchanged).
	Connection      uint64                  `json:"connection,omitempty"`
	Server          messages.Implementation `json:"server"`
	ProtocolVersion string                  `json:"protocolVersion"`
}

// Tenant calls the per-tenant sessions of one tenant: each (server,
// tenant) pair is an identity of its own, with its own server process or
// HTTP session, so one user's session never serves another. Config's
// ServerFor gives each its configuration.
type Tenant struct {
	m      *Member
	tenant string
}

// As returns the calls of tenant's sessions. As("") is the shared
// session, which Member's own methods call.
func (m *Member) As(tenant string) Tenant { return Tenant{m: m, tenant: tenant} }

// CallTool calls tool on server's shared session, wherever it lives.
func (m *Member) CallTool(ctx context.Context, server, tool string, args any) (*messages.CallToolResult, error) {
	return m.As("").CallTool(ctx, server, tool, args)
}

// ListTools lists server's tools (from the cluster's shared cache when
// filled, so that they stay offered while the server moves).
func (m *Member) ListTools(ctx context.Context, server string) ([]messages.Tool, error) {
	return m.As("").ListTools(ctx, server)
}

// ListResources lists server's resources.
func (m *Member) ListResources(ctx context.Context, server string) ([]messages.Resource, error) {
	return m.As("").ListResources(ctx, server)
}

// ReadResource reads uri from server.
func (m *Member) ReadResource(ctx context.Context, server, uri string) (*messages.ReadResourceResult, error) {
	return m.As("").ReadResource(ctx, server, uri)
}

// ListPrompts lists server's prompts.
func (m *Member) ListPrompts(ctx context.Context, server string) ([]messages.Prompt, error) {
	return m.As("").ListPrompts(ctx, server)
}

// GetPrompt gets prompt name from server.
func (m *Member) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*messages.GetPromptResult, error) {
	return m.As("").GetPrompt(ctx, server, name, args)
}

// Info describes server's shared session, activating it if needed.
func (m *Member) Info(ctx context.Context, server string) (SessionInfo, error) {
	return m.As("").Info(ctx, server)
}

func (t Tenant) identity(server string) Identity { return Identity{Server: server, Tenant: t.tenant} }

// CallTool calls tool on the tenant's session of server.
func (t Tenant) CallTool(ctx context.Context, server, tool string, args any) (*messages.CallToolResult, error) {
	return t.callTool(ctx, &request{Server: server, Tenant: t.tenant, Method: methodCallTool, Name: tool}, args)
}

// callTool sends req, a tools/call, with args.
func (t Tenant) callTool(ctx context.Context, req *request, args any) (*messages.CallToolResult, error) {
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("cluster: %s tools/call %s: member %s: encode arguments: %w", req.identity(), req.Name, t.m.cfg.Name, err)
		}
		req.Args = b
	}
	var out messages.CallToolResult
	if err := t.run(ctx, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListTools lists the tools of the tenant's session of server.
func (t Tenant) ListTools(ctx context.Context, server string) ([]messages.Tool, error) {
	id := t.identity(server)
	if b := t.m.view.cachedTools(id); b != nil {
		var tools []messages.Tool
		if json.Unmarshal(b, &tools) == nil {
			return tools, nil
		}
	}
	var out []messages.Tool
	err := t.run(ctx, &request{Server: server, Tenant: t.tenant, Method: methodListTools}, &out)
	return out, err
}

// ListResources lists the resources of the tenant's session of server.
func (t Tenant) ListResources(ctx context.Context, server string) ([]messages.Resource, error) {
	var out []messages.Resource
	err := t.run(ctx, &request{Server: server, Tenant: t.tenant, Method: methodListResources}, &out)
	return out, err
}

// ReadResource reads uri from the tenant's session of server.
func (t Tenant) ReadResource(ctx context.Context, server, uri string) (*messages.ReadResourceResult, error) {
	var out messages.ReadResourceResult
	if err := t.run(ctx, &request{Server: server, Tenant: t.tenant, Method: methodReadResource, URI: uri}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListPrompts lists the prompts of the tenant's session of server.
func (t Tenant) ListPrompts(ctx context.Context, server string) ([]messages.Prompt, error) {
	var out []messages.Prompt
	err := t.run(ctx, &request{Server: server, Tenant: t.tenant, Method: methodListPrompts}, &out)
	return out, err
}

// GetPrompt gets prompt name from the tenant's session of server.
func (t Tenant) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*messages.GetPromptResult, error) {
	var out messages.GetPromptResult
	if err := t.run(ctx, &request{Server: server, Tenant: t.tenant, Method: methodGetPrompt, Name: name, PromptArgs: args}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Info describes the tenant's session of server, activating it if needed.
func (t Tenant) Info(ctx context.Context, server string) (SessionInfo, error) {
	var out SessionInfo
	err := t.run(ctx, &request{Server: server, Tenant: t.tenant, Method: methodInfo}, &out)
	return out, err
}

// run sends req and decodes the result into out.
func (t Tenant) run(ctx context.Context, req *request, out any) error {
	resp, err := t.m.do(ctx, req)
	if err != nil {
		return err
	}
	if r, ok := out.(*messages.CallToolResult); ok {
		// The result's bytes are the response's alone: the result may
		// share them, and its decoder needs no scan of them first.
		err = r.UnmarshalOwned(resp.Result)
	} else {
		err = json.Unmarshal(resp.Result, out)
	}
	if err != nil {
		return fmt.Errorf("cluster: %s %s from member %s: decode result: %w", req.identity(), req.Method, resp.Member, err)
	}
	return nil
}
