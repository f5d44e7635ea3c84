package supervisor

import (
	"iter"
	"slices"
)

// viewList is a snapshot's views, by position (snapshot.index), held in
// chunks of viewChunk: a publish that changes a few members' views copies
// the list of chunks and the chunks those views are in, not every view.
// With one slice, each of the few publishes a server makes as it comes up
// copied all N views, which made a bring-up of N servers allocate N²
// (docs/benchmarks.md, "10. One runtime at scale"). Read-only once
// published, as the snapshot is.
type viewList struct {
	chunks [][]*serverView
	n      int
}

// viewChunk is the views in a chunk: a change copies at most N/viewChunk
// chunk pointers and viewChunk views.
const viewChunk = 64

func (l viewList) len() int { return l.n }

func (l viewList) at(i int) *serverView { return l.chunks[i/viewChunk][i%viewChunk] }

// all yields every view, in position order.
func (l viewList) all() iter.Seq[*serverView] {
	return func(yield func(*serverView) bool) {
		for _, c := range l.chunks {
			for _, v := range c {
				if !yield(v) {
					return
				}
			}
		}
	}
}

// add appends v, for a list being built and not yet published.
func (l *viewList) add(v *serverView) {
	if l.n%viewChunk == 0 {
		l.chunks = append(l.chunks, make([]*serverView, 0, viewChunk))
	}
	last := len(l.chunks) - 1
	l.chunks[last] = append(l.chunks[last], v)
	l.n++
}

// viewEdit is a published list with some views replaced, made without
// changing that list: each chunk it changes is copied once, at its first
// change.
type viewEdit struct {
	l      viewList
	copied []bool // by chunk; nil until the first change
}

// set replaces the view at i.
func (e *viewEdit) set(i int, v *serverView) {
	if e.copied == nil {
		e.l.chunks = slices.Clone(e.l.chunks)
		e.copied = make([]bool, len(e.l.chunks))
	}
	c := i / viewChunk
	if !e.copied[c] {
		e.l.chunks[c] = slices.Clone(e.l.chunks[c])
		e.copied[c] = true
	}
	e.l.chunks[c][i%viewChunk] = v
}

// changed reports whether set was called.
func (e *viewEdit) changed() bool { return e.copied != nil }
