package supervisor

import (
	"sync"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/naming"
)

// A call finds its tool by exposed name. The index of every exposed name
// (exposedTools) is made anew for each snapshot whose tools changed, and
// while servers come up every listing changes them: a backend calling
// tools meanwhile made one for nearly every call, each of every tool of
// every server, N² for N servers (and hundreds of kilobytes per call at a
// few hundred servers). A name that is one tool's base name, as almost all
// are, is that tool's whatever the others are (naming.BaseSplits), so a
// call finds it from the servers' names and their own tools; only a name
// that may be shortened or disambiguated (naming.Derived) needs the index.
// Tools(), which lists them all, still builds it. Prompts are found the
// same way (GetPrompt).

// tool returns where an exposed tool name leads, as the snapshot's
// exposedTools would.
func (s *snapshot) tool(exposed string) (toolRef, bool) {
	if naming.Derived(exposed) {
		_, byName := s.exposed.get()
		ref, ok := byName[exposed]
		return ref, ok
	}
	v, tool, ok := s.named(exposed, func(v *serverView) map[string][]string {
		return namesOf(v.toolNames, v.tools, func(t messages.Tool) string { return t.Name })
	})
	if !ok {
		return toolRef{}, false
	}
	return v.ref(tool), true
}

// prompt returns where an exposed prompt name leads, as the snapshot's
// exposedCatalog would.
func (s *snapshot) prompt(exposed string) (promptRef, bool) {
	if naming.Derived(exposed) {
		ref, ok := s.catalog.get().byName[exposed]
		return ref, ok
	}
	v, prompt, ok := s.named(exposed, func(v *serverView) map[string][]string {
		return namesOf(v.promptNames, v.prompts, func(p messages.Prompt) string { return p.Name })
	})
	if !ok {
		return promptRef{}, false
	}
	return promptRef{server: v.srv.Name, prompt: prompt}, true
}

// named finds the one item, of the server's own names names(v) indexes
// by sanitised name, whose unshortened base name exposed is; ok is false
// if none is, or several are (they all go by other names then).
func (s *snapshot) named(exposed string, names func(*serverView) map[string][]string) (v *serverView, item string, ok bool) {
	n := 0
	byServer := s.serverNames.get(s.index)
	for server, name := range naming.BaseSplits(exposed) {
		for _, i := range byServer[server] {
			w := s.views.at(i)
			for _, raw := range names(w)[name] {
				v, item, n = w, raw, n+1
			}
		}
	}
	return v, item, n == 1
}

// ref is where the view's tool leads.
func (v *serverView) ref(tool string) toolRef {
	return toolRef{server: v.srv.Name, tool: tool, client: v.client, latency: v.latency,
		health: v.health, connectTimeout: v.srv.Spec.ConnectTimeout}
}

// serverPositions maps each sanitised server name (naming.Sanitize) to
// the positions of the servers that have it, made on first use and
// read-only then: a snapshot shares it with the next while no server
// comes or goes, as it shares the index.
type serverPositions struct {
	once   sync.Once
	byName map[string][]int
}

func (p *serverPositions) get(index map[string]int) map[string][]int {
	p.once.Do(func() {
		p.byName = make(map[string][]int, len(index))
		for name, i := range index {
			s := naming.Sanitize(name)
			p.byName[s] = append(p.byName[s], i)
		}
	})
	return p.byName
}

// itemNames maps the sanitised names of a server's tools, or of its
// prompts, to their own names, made on first use and read-only then: a
// view shares it with the server's next view while the list is the same.
type itemNames struct {
	once   sync.Once
	byName map[string][]string
}

// namesOf is n's map, made from items, named by name, the first time.
func namesOf[T any](n *itemNames, items []T, name func(T) string) map[string][]string {
	n.once.Do(func() {
		n.byName = make(map[string][]string, len(items))
		for _, it := range items {
			raw := name(it)
			s := naming.Sanitize(raw)
			n.byName[s] = append(n.byName[s], raw)
		}
	})
	return n.byName
}
