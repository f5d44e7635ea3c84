package transport

// retiredCalls remembers the observers of the last calls retired by timeout
// or cancellation, so that a late answer can still be reported on the
// call's trace ("late response ignored", docs/telemetry.md). It is bounded: an
// answer later than the last retiredKeep retirements is only counted.
// Owned by the transport actor, like the pending table.
type retiredCalls struct {
	obs   map[int64]CallObserver
	order []int64 // ring of ids, oldest overwritten first; made at the first retirement
	next  int
}

const retiredKeep = 256

func (r *retiredCalls) add(id int64, obs CallObserver) {
	if r.obs == nil {
		r.obs, r.order = make(map[int64]CallObserver, retiredKeep), make([]int64, retiredKeep)
	}
	if old := r.order[r.next]; old != 0 {
		delete(r.obs, old)
	}
	r.order[r.next] = id
	r.next = (r.next + 1) % retiredKeep
	r.obs[id] = obs
}

// take returns and forgets the observer of a retired call.
func (r *retiredCalls) take(id int64) (CallObserver, bool) {
	obs, ok := r.obs[id]
	if ok {
		delete(r.obs, id)
	}
	return obs, ok
}
