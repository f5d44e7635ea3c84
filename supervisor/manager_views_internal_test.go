package supervisor

import (
	"slices"
	"testing"
)

// An edit of a published list leaves that list as it was, copies only
// the chunks it changes, and reads back in position order.
func TestViewEditCopiesOnlyWhatChanges(t *testing.T) {
	const n = 3*viewChunk + 5
	views := make([]*serverView, n)
	var published viewList
	for i := range views {
		views[i] = &serverView{restarts: i}
		published.add(views[i])
	}
	if published.len() != n || !slices.Equal(slices.Collect(published.all()), views) {
		t.Fatal("a built list does not read back as built")
	}

	edit := viewEdit{l: published}
	if edit.changed() {
		t.Fatal("an edit with no set reports a change")
	}
	first, last := &serverView{restarts: -1}, &serverView{restarts: -2}
	edit.set(3, first)
	edit.set(n-1, last)
	edit.set(4, first) // the same chunk again: copied once

	if !slices.Equal(slices.Collect(published.all()), views) {
		t.Error("the edit changed the published list")
	}
	want := slices.Clone(views)
	want[3], want[4], want[n-1] = first, first, last
	if got := slices.Collect(edit.l.all()); !edit.changed() || !slices.Equal(got, want) {
		t.Error("the edited list does not hold the new views in place")
	}
	for c := range published.chunks {
		shared := &published.chunks[c][0] == &edit.l.chunks[c][0]
		if touched := c == 0 || c == len(published.chunks)-1; shared == touched {
			t.Errorf("chunk %d: shared %v; want it shared only if no view in it changed", c, shared)
		}
	}
}
