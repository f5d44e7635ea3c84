package supervisor

import (
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/supervisor/config"
)

// A zero field of a restart policy takes its default; a negative
// MaxRestarts allows none; a minimum above the default maximum raises it.
func TestEffectiveRestart(t *testing.T) {
	if got := effectiveRestart(config.RestartPolicy{}); got != config.DefaultRestartPolicy() {
		t.Errorf("zero policy = %+v, want the default", got)
	}
	got := effectiveRestart(config.RestartPolicy{MaxRestarts: -1, BackoffMin: time.Minute})
	want := config.RestartPolicy{MaxRestarts: 0, Window: config.DefaultRestartPolicy().Window, BackoffMin: time.Minute, BackoffMax: time.Minute}
	if got != want {
		t.Errorf("policy = %+v, want %+v", got, want)
	}
}
