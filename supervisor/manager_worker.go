package supervisor

import "sync"

// worker runs jobs off the manager's actor, one at a time and in the order
// they were given, on a goroutine that runs only while there are jobs (so
// that none outlives a manager, whether it was closed or stopped on a
// panic). A job's result, a message for the actor, is sent unless the
// actor has stopped meanwhile. The order is what makes it a worker rather
// than a goroutine per job: the cache reads of servers added together end
// in the order they were added, so that they take handshake slots in that
// order as they did when the reads ran on the actor; and Approve is never
// called while another call of it is under way.
type worker struct {
	send func(any) // to the actor

	mu      sync.Mutex
	jobs    []func() any
	running bool
	stopped bool
}

// do queues a job; it never waits for one.
func (w *worker) do(job func() any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.jobs = append(w.jobs, job)
	if !w.running {
		w.running = true
		go w.run()
	}
}

func (w *worker) run() {
	for {
		w.mu.Lock()
		if len(w.jobs) == 0 || w.stopped {
			w.running, w.jobs = false, nil
			w.mu.Unlock()
			return
		}
		job := w.jobs[0]
		w.jobs = w.jobs[1:]
		w.mu.Unlock()
		msg := job()
		w.mu.Lock()
		stopped := w.stopped
		w.mu.Unlock()
		if msg != nil && !stopped {
			w.send(msg)
		}
	}
}

// stop drops the jobs still waiting, once the actor has stopped; a job
// under way ends on its own, and its message is not sent.
func (w *worker) stop() {
	w.mu.Lock()
	w.stopped, w.jobs = true, nil
	w.mu.Unlock()
}
