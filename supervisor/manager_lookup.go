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
// Tools(), which lists them all, still builds it.

// tool returns where an exposed tool name leads, as the snapshot's
// exposedTools would.
func (s *snapshot) tool(exposed string) (toolRef, bool) {
	if naming.Derived(exposed) {
		_, byName := s.exposed.get()
		ref, ok := byName[exposed]
		return ref, ok
	}
	var ref toolRef
	n := 0
	byServer := s.serverNames.get(s.index)
	for server, tool := range naming.BaseSplits(exposed) {
		for _, i := range byServer[server] {
			v := s.views.at(i)
			for _, raw := range v.toolNames.get(v.tools)[tool] {
				ref, n = v.ref(raw), n+1
			}
		}
	}
	// Several tools sharing the name all go by others.
	return ref, n == 1
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

// toolNames maps each sanitised tool name of a server to the tools that
// have it, made on first use and read-only then: a view shares it with
// the server's next view while its tool list is the same.
type toolNames struct {
	once   sync.Once
	byName map[string][]string
}

func (t *toolNames) get(tools []messages.Tool) map[string][]string {
	t.once.Do(func() {
		t.byName = make(map[string][]string, len(tools))
		for _, tl := range tools {
			s := naming.Sanitize(tl.Name)
			t.byName[s] = append(t.byName[s], tl.Name)
		}
	})
	return t.byName
}
