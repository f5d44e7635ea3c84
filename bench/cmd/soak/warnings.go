package main

import (
	"bytes"
	"log/slog"
	"sync/atomic"
)

// maxWarningsLogged bounds the runtime's warnings the run log shows: the
// first ones (a bring-up's, the first faults') say what went wrong, and
// a crash loop's hundreds would bury the rest.
const maxWarningsLogged = 40

// newWarningLog is the runtime's Logger in a soak: its warnings and
// errors go to the run log, up to maxWarningsLogged, so that a check that
// fails comes with what the runtime said at the time.
func newWarningLog(r *runner) *slog.Logger {
	w := &warningLines{r: r}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		Level: slog.LevelWarn,
		// The run log stamps each line with the run's clock.
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// warningLines writes each record (a line: slog's handlers write a record
// at a time) to the run log, and counts them.
type warningLines struct {
	r *runner
	n atomic.Int64
}

func (w *warningLines) Write(p []byte) (int, error) {
	switch n := w.n.Add(1); {
	case n <= maxWarningsLogged:
		w.r.logf("runtime: %s", bytes.TrimRight(p, "\n"))
	case n == maxWarningsLogged+1:
		w.r.logf("runtime: further warnings not shown")
	}
	return len(p), nil
}
