package supervisor

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// Prompts and resources across servers, beside the tools: each server's
// lists are fetched when it is ready (if it declares the capability),
// after its tools and after the starts of the servers around it
// (catalogsDue), and again on notifications/prompts/list_changed and
// notifications/resources/list_changed
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts,
// https://modelcontextprotocol.io/specification/2025-11-25/server/resources).
// Like the tools, they are published in the snapshot and named on first
// read, so that nothing of this is on a call's path.

// Prompt is a prompt as the manager exposes it.
type Prompt struct {
	// Name is the exposed name, mcp__<server>__<prompt>, made by the
	// rules of tool names (docs/configuration.md, "Tool names and the
	// tool-list cache").
	Name   string
	Server string
	// Prompt is the server's definition, with its own name.
	Prompt messages.Prompt
}

// Resource is a resource a managed server lists. Resources are addressed
// by their server and URI (ReadResource): URIs are the servers' own, and
// two servers may list the same one.
type Resource struct {
	Server   string
	Resource messages.Resource
}

// The kinds of catalog lists.
const (
	catalogPrompts   = "prompts"
	catalogResources = "resources"
)

// Messages of the manager actor about catalogs.
type (
	catalogChanged struct{ name, kind string }
	// catalogListed carries its member, as toolsListed does.
	catalogListed struct {
		name      string
		member    *member
		kind      string
		prompts   []messages.Prompt
		resources []messages.Resource
		err       error
	}
)

// defaultCatalogStall is how long the starts of other servers may go
// without progress (a handshake or a tools/list that ends) before the
// held catalogs go anyway (catalogsDue): a handshake may hang up to its
// connect timeout, and must not hold every catalog that long.
const defaultCatalogStall = 500 * time.Millisecond

// catalogHoldCheck: ManagerOptions.catalogStall has passed since the
// hold's timer was set (catalogHoldSeq tells the current timer from an
// older one).
type catalogHoldCheck struct{ seq uint64 }

// catalogsDue holds the prompts and resources of a ready server whose
// tools are in until no handshake and no tools/list is in flight or
// queued (releaseCatalogs, at once when nothing else is starting), or
// until those starts stall (defaultCatalogStall). Callers wait for tools
// (the startup gate, a call to a server still starting), not for catalogs:
// two more lists per server, during a bring-up of many servers, would be
// CPU taken from the handshakes and tool lists of the others
// (docs/benchmarks.md, "8. Bring-up of 100 stdio servers").
func (a *managerActor) catalogsDue(mb *member) {
	if !mb.catalogHeld {
		mb.catalogHeld = true
		a.catalogsHeld = append(a.catalogsHeld, mb)
	}
	// Receive releases the held catalogs once the message at hand is
	// handled, if nothing is starting then; the timer watches for a
	// stall otherwise.
	if a.starting() && a.catalogTimer == nil {
		a.startProgress = time.Now()
		a.armCatalogTimer(a.opts.catalogStall)
	}
}

func (a *managerActor) armCatalogTimer(d time.Duration) {
	a.catalogHoldSeq++
	a.catalogTimer = a.after(d, catalogHoldCheck{seq: a.catalogHoldSeq})
}

// catalogHoldCheck releases the held catalogs if the starts have made no
// progress for ManagerOptions.catalogStall, and looks again later
// otherwise: one timer per stall period, not one per start.
func (a *managerActor) catalogHoldCheck(m catalogHoldCheck) {
	if m.seq != a.catalogHoldSeq {
		return // a timer stopped too late
	}
	a.catalogTimer = nil
	if len(a.catalogsHeld) == 0 {
		return
	}
	if idle := time.Since(a.startProgress); idle < a.opts.catalogStall && a.starting() {
		a.armCatalogTimer(a.opts.catalogStall - idle)
		return
	}
	a.releaseCatalogs(true)
}

// progressed notes that a start made progress (a handshake or a
// tools/list ended), while catalogs are held for the starts.
func (a *managerActor) progressed() {
	if len(a.catalogsHeld) > 0 {
		a.startProgress = time.Now()
	}
}

// starting reports handshakes or tool lists in flight or queued.
func (a *managerActor) starting() bool {
	return a.active > 0 || len(a.queue) > 0 || a.toolListings > 0
}

// releaseCatalogs lists the held catalogs once nothing is starting, or
// at once when the starts stalled (force). Receive calls it after each
// message: a handler that frees a handshake slot and starts a tools/list
// (ready) is then seen whole, and no catalog goes out before that list.
func (a *managerActor) releaseCatalogs(force bool) {
	if len(a.catalogsHeld) == 0 || (!force && a.starting()) {
		return
	}
	held := a.catalogsHeld
	a.catalogsHeld = nil
	if a.catalogTimer != nil {
		a.catalogTimer.Stop()
		a.catalogTimer = nil
		a.catalogHoldSeq++
	}
	for _, mb := range held {
		mb.catalogHeld = false
		// A server that went down meanwhile lists its catalogs when it is
		// ready again (catalogDue).
		if a.members[mb.srv.Name] == mb && !mb.removing && mb.state == StateReady && mb.client != nil {
			a.listCatalogs(mb)
		}
	}
}

// listCatalogs fetches the prompts and resources a ready server declares.
func (a *managerActor) listCatalogs(mb *member) {
	caps := mb.client.Capabilities()
	if caps.Prompts != nil {
		a.listCatalog(mb, catalogPrompts)
	}
	if caps.Resources != nil {
		a.listCatalog(mb, catalogResources)
	}
}

// listCatalog fetches one list, off the actor.
func (a *managerActor) listCatalog(mb *member, kind string) {
	if mb.client == nil {
		return
	}
	if mb.catalogListing[kind] {
		mb.catalogRelist[kind] = true // list again when this one is in
		return
	}
	mb.catalogListing[kind] = true
	name := mb.srv.Name
	a.listOff(mb, kind, func(ctx context.Context, c *actors.Client) (any, error) {
		m := catalogListed{name: name, member: mb, kind: kind}
		if kind == catalogPrompts {
			m.prompts, m.err = c.ListPrompts(ctx)
		} else {
			m.resources, m.err = c.ListResources(ctx)
		}
		return m, m.err
	})
}

func (a *managerActor) catalogListed(m catalogListed) {
	mb := a.members[m.name]
	if mb != m.member || mb.removing {
		// A member removed meanwhile, perhaps replaced by one of the same
		// name: its lists are not the new member's.
		return
	}
	mb.catalogListing[m.kind] = false
	if mb.catalogRelist[m.kind] && mb.state == StateReady {
		mb.catalogRelist[m.kind] = false
		a.listCatalog(mb, m.kind)
	}
	defer a.catalogSettled(mb)
	if m.err != nil && len(m.prompts) == 0 && len(m.resources) == 0 {
		a.log.Warn("mcp: could not list "+m.kind, "server", m.name, "err", oneLine(m.err.Error()))
		return
	}
	if m.kind == catalogPrompts {
		if reflect.DeepEqual(mb.prompts, m.prompts) {
			return // the same list again: no change
		}
		mb.prompts = m.prompts
	} else {
		if reflect.DeepEqual(mb.resources, m.resources) {
			return
		}
		mb.resources = m.resources
	}
	mb.catalogNews = true
	a.changed(mb)
	a.publish()
}

// catalogSettled tells of a server's catalog change once none of its
// catalog lists is in flight: one EventCatalogChanged for its prompts and
// its resources listed together (at start, after a restart), not one per
// list.
func (a *managerActor) catalogSettled(mb *member) {
	if !mb.catalogNews || mb.catalogListing[catalogPrompts] || mb.catalogListing[catalogResources] {
		return
	}
	mb.catalogNews = false
	a.emit(Event{Kind: EventCatalogChanged, Server: mb.srv.Name, State: mb.state})
}

// exposedCatalog names the prompts and lists the resources of a
// snapshot's servers once, when first read.
type exposedCatalog struct {
	views     viewList
	once      sync.Once
	prompts   []Prompt
	byName    map[string]promptRef
	resources []Resource
}

// promptRef is where an exposed prompt name leads.
type promptRef struct{ server, prompt string }

func (e *exposedCatalog) get() *exposedCatalog {
	e.once.Do(e.build)
	return e
}

func (e *exposedCatalog) build() {
	index, n := exposedNames(e.views, func(v *serverView) []messages.Prompt { return v.prompts }, func(p messages.Prompt) string { return p.Name })
	e.byName = make(map[string]promptRef, n)
	for v := range e.views.all() {
		name := v.srv.Name
		for _, p := range v.prompts {
			exposed, ok := index.Exposed(name, p.Name)
			if !ok {
				continue
			}
			e.prompts = append(e.prompts, Prompt{Name: exposed, Server: name, Prompt: p})
			e.byName[exposed] = promptRef{server: name, prompt: p.Name}
		}
		for _, r := range v.resources {
			e.resources = append(e.resources, Resource{Server: name, Resource: r})
		}
	}
	slices.SortFunc(e.prompts, func(x, y Prompt) int { return compare(x.Name, y.Name) })
	slices.SortFunc(e.resources, func(x, y Resource) int {
		if c := compare(x.Server, y.Server); c != 0 {
			return c
		}
		return compare(x.Resource.URI, y.Resource.URI)
	})
}

// Prompts returns every prompt of every ready server, by exposed name
// (mcp__<server>__<prompt>), sorted.
func (m *Manager) Prompts() []Prompt {
	return slices.Clone(m.snap.Load().catalog.get().prompts)
}

// Resources returns every resource the ready servers list, sorted by
// server and URI.
func (m *Manager) Resources() []Resource {
	return slices.Clone(m.snap.Load().catalog.get().resources)
}

// GetPrompt renders a prompt by its exposed name on the server that
// offers it.
func (m *Manager) GetPrompt(ctx context.Context, exposed string, args map[string]string) (*messages.GetPromptResult, error) {
	if m.closed.Load() {
		return nil, callerr.NewManagerClosed()
	}
	s := m.snap.Load()
	ref, ok := s.prompt(exposed)
	if !ok {
		return nil, unknownName(owner(s, exposed), exposed)
	}
	start := time.Now()
	c, err := m.serverClient(ctx, s, ref.server, messages.MethodPromptsGet)
	if err != nil {
		return nil, err
	}
	res, err := c.GetPrompt(ctx, ref.prompt, args)
	m.observe(ref.server, s.server(ref.server).healthOf(), err)
	return res, m.waitedOut(ctx, err, ref.server, messages.MethodPromptsGet, start)
}

// ReadResource reads a resource by URI from the named server. The URI
// need not be listed (a resource template's, say); the server decides.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*messages.ReadResourceResult, error) {
	if m.closed.Load() {
		return nil, callerr.NewManagerClosed()
	}
	s := m.snap.Load()
	start := time.Now()
	c, err := m.serverClient(ctx, s, server, messages.MethodResourcesRead)
	if err != nil {
		return nil, err
	}
	res, err := c.ReadResource(ctx, uri)
	m.observe(server, s.server(server).healthOf(), err)
	return res, m.waitedOut(ctx, err, server, messages.MethodResourcesRead, start)
}

// serverClient is the client of a server that can take a request now,
// or once it is ready, when it is restarting or starting
// (manager_wait.go).
func (m *Manager) serverClient(ctx context.Context, s *snapshot, server, method string) (*actors.Client, error) {
	v := s.server(server)
	if v == nil {
		return nil, callerr.NewUnknownServer(&callerr.Error{Server: server})
	}
	if err := m.unavailable(s, server); err != nil {
		return nil, err
	}
	if v.client != nil && waiting(v.state) {
		var err error
		if s, err = m.awaitReady(ctx, s, server, method); err != nil {
			return nil, err
		}
		v = s.server(server)
	}
	if v.client == nil {
		return nil, callerr.NewUnavailable(&callerr.Error{Server: server, State: v.state.String(), Cause: v.lastErr})
	}
	return v.client, nil
}
