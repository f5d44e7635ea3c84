package actors

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// The 2026-07-28 revision's Streamable HTTP mirrors parts of a request's
// body into headers, so that gateways can route without reading bodies
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-headers):
// Mcp-Method on every request, Mcp-Name on tools/call, prompts/get and
// resources/read, and Mcp-Param-{Name} for each tool argument that the
// tool's input schema marks with x-mcp-header. stdio carries none.

// statelessHeaders returns the headers of a stateless request, nil when
// the transport does not speak HTTP. MCP-Protocol-Version must match the
// version in _meta; the transport sends it too once the protocol is settled,
// but the probe goes before that.
func statelessHeaders(conn *transport.Conn, version, method, name string) map[string]string {
	if !conn.HTTP() {
		return nil
	}
	h := routeHeaders(method, name)
	h["Mcp-Protocol-Version"] = version
	return h
}

// routeHeaders returns a new map of the Mcp-Method and, for a name, the
// Mcp-Name header.
func routeHeaders(method, name string) map[string]string {
	h := make(map[string]string, 4)
	h["Mcp-Method"] = method
	if name != "" {
		h["Mcp-Name"] = headerValue(name)
	}
	return h
}

// maxSharedHeaders bounds a connection's sharedHeaders: a client that
// reads many resources by URI gets new maps past it, not a cache that
// grows without end.
const maxSharedHeaders = 64

// headerRoute is what sharedHeaders keys a request's headers by.
type headerRoute struct{ method, name string }

// sharedHeaders returns routeHeaders(method, name), the same map for every
// request of this connection that has no headers of its own besides: the
// transport only reads it, and a map made per request was two of the
// allocations the stateless protocol added to each call over HTTP. The cache is
// copied on write, so that the hot path reads it without a lock.
func (g *generation) sharedHeaders(method, name string) map[string]string {
	k := headerRoute{method, name}
	old := g.routes.Load()
	if old != nil {
		if h, ok := (*old)[k]; ok {
			return h
		}
	}
	h := routeHeaders(method, name)
	if old == nil || len(*old) < maxSharedHeaders {
		next := make(map[headerRoute]map[string]string, 1+len(mapOrNil(old)))
		for rk, rv := range mapOrNil(old) {
			next[rk] = rv
		}
		next[k] = h
		// Losing a race only means a map made again later.
		g.routes.CompareAndSwap(old, &next)
	}
	return h
}

func mapOrNil(m *map[headerRoute]map[string]string) map[headerRoute]map[string]string {
	if m == nil {
		return nil
	}
	return *m
}

// targetName is what Mcp-Name carries for a request's params: the tool or
// prompt name, or the resource URI.
func targetName(params any) string {
	if p, ok := callToolParams(params); ok {
		return p.Name
	}
	switch p := params.(type) {
	case messages.GetPromptParams:
		return p.Name
	case messages.ReadResourceParams:
		return p.URI
	case messages.TaskIDParams:
		// Mcp-Name routes a task's requests to the instance that holds it
		// (tasks extension, "Streamable HTTP: Routing Headers").
		return p.TaskID
	case messages.UpdateTaskParams:
		return p.TaskID
	}
	return ""
}

// headerValue encodes a header value as the revision says: as it is when
// it is plain visible ASCII (spaces and tabs allowed inside), else
// "=?base64?<base64 of its UTF-8>?=" — also when it has leading or
// trailing white space, or already looks like that form
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#value-encoding).
func headerValue(v string) string {
	plain := v != "" && strings.TrimSpace(v) == v &&
		!(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; plain && i < len(v); i++ {
		c := v[i]
		plain = c == ' ' || c == '\t' || (c >= 0x21 && c <= 0x7E)
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// headerParam is one argument of a tool that goes into a header: its
// header name and where the argument is, a path of properties.
type headerParam struct {
	header string
	path   []string
}

// toolHeaders reads the x-mcp-header annotations of a tool's input schema.
// A tool whose annotations are invalid must be left out of the tool list
// (it could not be called correctly); the error says why.
func toolHeaders(schema json.RawMessage) ([]headerParam, error) {
	var out []headerParam
	seen := map[string]bool{}
	var walk func(node json.RawMessage, path []string) error
	walk = func(node json.RawMessage, path []string) error {
		var s map[string]json.RawMessage
		if json.Unmarshal(node, &s) != nil {
			return nil
		}
		if raw, ok := s["x-mcp-header"]; ok {
			var name string
			if json.Unmarshal(raw, &name) != nil || !isToken(name) {
				return fmt.Errorf("x-mcp-header %s at %q is not a valid header name", raw, strings.Join(path, "."))
			}
			if len(path) == 0 {
				return fmt.Errorf("x-mcp-header %q annotates the whole input, not a property", name)
			}
			var typ string
			_ = json.Unmarshal(s["type"], &typ)
			if typ != "string" && typ != "integer" && typ != "boolean" {
				return fmt.Errorf("x-mcp-header %q annotates %q of type %q; only string, integer and boolean may be", name, strings.Join(path, "."), typ)
			}
			key := strings.ToLower(name)
			if seen[key] {
				return fmt.Errorf("x-mcp-header %q is used twice", name)
			}
			seen[key] = true
			out = append(out, headerParam{header: name, path: append([]string(nil), path...)})
		}
		// Only chains of properties are statically reachable; an
		// annotation under items, oneOf and the like is invalid.
		for _, kw := range []string{"items", "prefixItems", "additionalProperties", "oneOf", "anyOf", "allOf", "not", "if", "then", "else", "$defs", "definitions"} {
			if sub, ok := s[kw]; ok && strings.Contains(string(sub), `"x-mcp-header"`) {
				return fmt.Errorf("x-mcp-header under %q in %q is not reachable through properties alone", kw, strings.Join(path, "."))
			}
		}
		var props map[string]json.RawMessage
		if json.Unmarshal(s["properties"], &props) == nil {
			for name, sub := range props {
				if err := walk(sub, append(path, name)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(schema, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// paramHeaders extracts the annotated arguments of a call into
// Mcp-Param-{Name} headers; an argument absent or null has none.
func paramHeaders(h map[string]string, params []headerParam, args any) error {
	if len(params) == 0 {
		return nil
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	for _, p := range params {
		v, ok := lookup(raw, p.path)
		if !ok {
			continue
		}
		var s string
		switch {
		case json.Unmarshal(v, &s) == nil:
		case string(v) == "true" || string(v) == "false":
			s = string(v)
		default:
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil || n > 1<<53-1 || n < -(1<<53-1) {
				return fmt.Errorf("argument %q for header %q is not a string, an integer or a boolean", strings.Join(p.path, "."), p.header)
			}
			s = strconv.FormatInt(n, 10)
		}
		h["Mcp-Param-"+p.header] = headerValue(s)
	}
	return nil
}

// lookup follows path through nested objects of raw; null is absent.
func lookup(raw json.RawMessage, path []string) (json.RawMessage, bool) {
	for _, key := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil, false
		}
		v, ok := obj[key]
		if !ok {
			return nil, false
		}
		raw = v
	}
	if string(raw) == "null" {
		return nil, false
	}
	return raw, true
}

// requestHeaders builds a stateless request's HTTP headers (nil on
// stdio). For tools/call they include the tool's x-mcp-header arguments,
// whose annotations come from the tool list (read once per connection, and
// again when fresh is set). MCP-Protocol-Version is left to the transport,
// which sends the version the handshake established on every request.
// Without Mcp-Param headers, the map is the connection's for this method
// and name (sharedHeaders), not a new one per request.
func (c *Client) requestHeaders(ctx context.Context, g *generation, method string, params any, fresh bool) (map[string]string, error) {
	if !g.conn.HTTP() {
		return nil, nil
	}
	name := targetName(params)
	p, ok := callToolParams(params)
	if !ok {
		return g.sharedHeaders(method, name), nil
	}
	annotated, err := c.toolHeaderParams(ctx, g, p.Name, fresh)
	if err != nil {
		return nil, err
	}
	if len(annotated) == 0 {
		return g.sharedHeaders(method, name), nil
	}
	h := routeHeaders(method, name)
	return h, paramHeaders(h, annotated, p.Arguments)
}

// toolHeaderParams returns the x-mcp-header arguments of a tool, listing
// the tools first if this connection has not. The calls that find no
// list share one listing (listTools): the first calls on a connection
// come at once, and each listing the tools would send as many tools/list.
func (c *Client) toolHeaderParams(ctx context.Context, g *generation, tool string, fresh bool) ([]headerParam, error) {
	if m := g.headers.Load(); m != nil && !fresh {
		return (*m)[tool], nil
	}
	if err := c.listTools(ctx, g, fresh); err != nil {
		return nil, err
	}
	if m := g.headers.Load(); m != nil {
		return (*m)[tool], nil
	}
	return nil, nil
}

// listTools lists the tools for the calls on g that need the list, once
// for those that ask while it runs. The listing is not the first caller's
// to cancel: it runs with that caller's values (its trace) but not its
// cancellation, bounded by the request timeout as every request is, and
// each caller stops waiting when its own context ends. A listing after a
// HeaderMismatch (fresh) is not shared with one started before it.
func (c *Client) listTools(ctx context.Context, g *generation, fresh bool) error {
	key := "tools"
	if fresh {
		key = "tools, fresh"
	}
	ch := g.listing.DoChan(key, func() (any, error) {
		_, err := c.ListTools(context.WithoutCancel(ctx))
		return nil, err
	})
	select {
	case r := <-ch:
		return r.Err
	case <-ctx.Done():
		return callerr.NewCanceled(&callerr.Error{Server: c.name, Method: messages.MethodToolsList, Cause: context.Cause(ctx)})
	}
}

// isHeaderMismatch reports the stateless protocol's HeaderMismatch error.
func isHeaderMismatch(err error) bool {
	var rpc *callerr.RPCError
	status := callerr.HTTPStatus(err)
	switch {
	case errors.As(err, &rpc):
		return rpc.Code == codeHeaderMismatch
	case status != nil && status.RPC != nil:
		return status.RPC.Code == codeHeaderMismatch
	}
	return false
}
