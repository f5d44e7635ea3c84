package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
)

// maxWarningsLogged bounds the runtime's warnings the run log shows: the
// first ones (a bring-up's, the first faults') say what went wrong, and
// a crash loop's hundreds would bury the rest.
const maxWarningsLogged = 40

// warningLog is the runtime's Logger in a soak: its warnings and errors
// go to the run log, up to maxWarningsLogged, so that a check that fails
// comes with what the runtime said at the time.
type warningLog struct {
	r     *runner
	n     *atomic.Int64
	attrs string // of WithAttrs, rendered
}

func newWarningLog(r *runner) *slog.Logger {
	return slog.New(warningLog{r: r, n: new(atomic.Int64)})
}

func (w warningLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (w warningLog) Handle(_ context.Context, rec slog.Record) error {
	n := w.n.Add(1)
	if n > maxWarningsLogged {
		if n == maxWarningsLogged+1 {
			w.r.logf("runtime: further warnings not shown")
		}
		return nil
	}
	var b strings.Builder
	b.WriteString(rec.Message)
	b.WriteString(w.attrs)
	rec.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%q", a.Key, a.Value.String())
		return true
	})
	w.r.logf("runtime %s: %s", rec.Level, b.String())
	return nil
}

func (w warningLog) WithAttrs(as []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(w.attrs)
	for _, a := range as {
		fmt.Fprintf(&b, " %s=%q", a.Key, a.Value.String())
	}
	w.attrs = b.String()
	return w
}

// WithGroup is not used by the runtime; a group's attributes are shown
// without it.
func (w warningLog) WithGroup(string) slog.Handler { return w }
