package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/naming"
)

// Prompts and resources in the Manager's convention. Unlike tools, the
// cluster shares no cache of them in etcd: each member keeps the lists
// it last loaded (LoadPrompts, LoadResources, and any GetPrompt that had
// to look a name up), and ListPrompts and ListResources answer from
// them without a round trip, as the Manager's answer from the lists of
// its ready servers.

// ListPrompts returns the prompts of every server this member has
// loaded for the value's tenant, by exposed name
// (mcp__<server>__<prompt>, named as tools are), sorted, as the
// Manager's ListPrompts does. A server whose prompts this member never
// loaded is not listed yet (LoadPrompts loads them).
func (e Exposed) ListPrompts() []mcpactor.ManagedPrompt {
	prompts, _ := e.promptCatalog(e.t.m.catalogs.promptLists(e.t))
	return prompts
}

// LoadPrompts lists the prompts of every configured server from its
// owner (activating the tenant's session where none is active),
// concurrently, within ctx, and returns them as ListPrompts does, which
// offers them from then on. A server that could not list is left out;
// the failures are returned, joined.
func (e Exposed) LoadPrompts(ctx context.Context) ([]mcpactor.ManagedPrompt, error) {
	err := e.loadPrompts(ctx, func(string) bool { return true })
	prompts, _ := e.promptCatalog(e.t.m.catalogs.promptLists(e.t))
	return prompts, err
}

// GetPrompt renders a prompt by its exposed name on the session that
// offers it, wherever it lives, as the Manager's GetPrompt does. A name
// the loaded lists do not give is looked for in fresh lists of the
// servers it could be made from; a name none offers is an
// an ErrNotFound *mcpactor.Error, as the Manager's (ErrNotFound matches
// unknown tool and prompt names alike).
func (e Exposed) GetPrompt(ctx context.Context, exposed string, args map[string]string) (*messages.GetPromptResult, error) {
	_, byName := e.promptCatalog(e.t.m.catalogs.promptLists(e.t))
	pair, ok := byName[exposed]
	var err error
	if !ok {
		err = e.loadPrompts(ctx, func(server string) bool { return couldExpose(server, exposed) })
		_, byName = e.promptCatalog(e.t.m.catalogs.promptLists(e.t))
		pair, ok = byName[exposed]
	}
	if !ok {
		unknown := callerr.NewUnknownTool(&callerr.Error{Tool: exposed})
		if err != nil {
			return nil, fmt.Errorf("%w (listing prompts failed: %w)", unknown, err)
		}
		return nil, unknown
	}
	return e.t.GetPrompt(ctx, pair.Server, pair.Tool, args)
}

// ListResources returns the resources every server this member has
// loaded for the value's tenant lists, with the server's name, sorted by
// server and URI, as the Manager's ListResources does. Read one with
// ReadResource(ctx, Server, Resource.URI).
func (e Exposed) ListResources() []mcpactor.ManagedResource {
	lists := e.t.m.catalogs.resourceLists(e.t)
	var out []mcpactor.ManagedResource
	for server, list := range lists {
		for _, r := range list {
			out = append(out, mcpactor.ManagedResource{Server: server, Resource: r})
		}
	}
	slices.SortFunc(out, func(a, b mcpactor.ManagedResource) int {
		if c := strings.Compare(a.Server, b.Server); c != 0 {
			return c
		}
		return strings.Compare(a.Resource.URI, b.Resource.URI)
	})
	return out
}

// LoadResources lists the resources of every configured server from its
// owner, as LoadPrompts lists prompts, and returns them as ListResources
// does.
func (e Exposed) LoadResources(ctx context.Context) ([]mcpactor.ManagedResource, error) {
	err := e.loadEach(ctx, func(string) bool { return true }, func(ctx context.Context, server string) error {
		list, err := e.t.ListResources(ctx, server)
		if err == nil {
			e.t.m.catalogs.putResources(e.t.identity(server), list)
		}
		return err
	})
	return e.ListResources(), err
}

// ReadResource reads a resource by URI from the value's tenant's
// session of server, wherever it lives, as the Manager's ReadResource
// does: resources are addressed by server and URI, not by an exposed
// name. The URI need not be listed; the server decides.
func (e Exposed) ReadResource(ctx context.Context, server, uri string) (*messages.ReadResourceResult, error) {
	return e.t.ReadResource(ctx, server, uri)
}

// loadPrompts lists the prompts of the servers want picks into the
// member's lists.
func (e Exposed) loadPrompts(ctx context.Context, want func(server string) bool) error {
	return e.loadEach(ctx, want, func(ctx context.Context, server string) error {
		list, err := e.t.ListPrompts(ctx, server)
		if err == nil {
			e.t.m.catalogs.putPrompts(e.t.identity(server), list)
		}
		return err
	})
}

// loadEach runs load for each configured server want picks,
// concurrently, and returns the failures, joined.
func (e Exposed) loadEach(ctx context.Context, want func(server string) bool, load func(ctx context.Context, server string) error) error {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	for server := range e.t.m.cfg.Servers {
		if !want(server) {
			continue
		}
		wg.Go(func() {
			if err := load(ctx, server); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return joinSorted(errs)
}

// promptCatalog names the prompts of lists as a Manager names its
// servers' (naming.NewToolIndex over every list at once) and returns
// them sorted, with where each name leads.
func (e Exposed) promptCatalog(lists map[string][]messages.Prompt) ([]mcpactor.ManagedPrompt, map[string]naming.ToolPair) {
	var pairs []naming.ToolPair
	for server, list := range lists {
		for _, p := range list {
			pairs = append(pairs, naming.ToolPair{Server: server, Tool: p.Name})
		}
	}
	ix := naming.NewToolIndex(pairs)
	out := make([]mcpactor.ManagedPrompt, 0, len(pairs))
	byName := make(map[string]naming.ToolPair, len(pairs))
	for server, list := range lists {
		for _, p := range list {
			name, ok := ix.Exposed(server, p.Name)
			if !ok {
				continue
			}
			out = append(out, mcpactor.ManagedPrompt{Name: name, Server: server, Prompt: p})
			byName[name] = naming.ToolPair{Server: server, Tool: p.Name}
		}
	}
	slices.SortFunc(out, func(a, b mcpactor.ManagedPrompt) int { return strings.Compare(a.Name, b.Name) })
	return out, byName
}

// catalogs are the prompt and resource lists a member loaded, by
// identity.
type catalogs struct {
	mu        sync.Mutex
	prompts   map[Identity][]messages.Prompt
	resources map[Identity][]messages.Resource
}

// maxCatalogs bounds each map of catalogs: a member whose callers name
// ever new tenants starts again past it, as its PID cache does.
const maxCatalogs = 4096

func (c *catalogs) putPrompts(id Identity, list []messages.Prompt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prompts == nil || len(c.prompts) >= maxCatalogs {
		c.prompts = map[Identity][]messages.Prompt{}
	}
	c.prompts[id] = list
}

func (c *catalogs) putResources(id Identity, list []messages.Resource) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.resources == nil || len(c.resources) >= maxCatalogs {
		c.resources = map[Identity][]messages.Resource{}
	}
	c.resources[id] = list
}

// promptLists returns t's loaded prompt lists, by configured server.
func (c *catalogs) promptLists(t Tenant) map[string][]messages.Prompt {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]messages.Prompt{}
	for server := range t.m.cfg.Servers {
		if list, ok := c.prompts[t.identity(server)]; ok {
			out[server] = list
		}
	}
	return out
}

// resourceLists returns t's loaded resource lists, by configured server.
func (c *catalogs) resourceLists(t Tenant) map[string][]messages.Resource {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]messages.Resource{}
	for server := range t.m.cfg.Servers {
		if list, ok := c.resources[t.identity(server)]; ok {
			out[server] = list
		}
	}
	return out
}
