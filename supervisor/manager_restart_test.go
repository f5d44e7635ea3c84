package supervisor

import (
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
)

// A zero field of a restart policy takes its default; a negative
// MaxRestarts allows none; a minimum above the default maximum raises it.
func TestEffectiveRestart(t *testing.T) {
	if got := effectiveRestart(actors.RestartPolicy{}); got != actors.DefaultRestartPolicy() {
		t.Errorf("zero policy = %+v, want the default", got)
	}
	got := effectiveRestart(actors.RestartPolicy{MaxRestarts: -1, BackoffMin: time.Minute})
	want := actors.RestartPolicy{MaxRestarts: 0, Window: actors.DefaultRestartWindow, BackoffMin: time.Minute, BackoffMax: time.Minute}
	if got != want {
		t.Errorf("policy = %+v, want %+v", got, want)
	}
}
