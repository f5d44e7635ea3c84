package supervisor_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor"
)

// A list_changed that arrives while a list of the same kind is in flight
// is not dropped: that list's answer may predate the change, so the
// manager lists again once it is in (else it would keep the old list
// until the next change).
func TestManagerListsAgainAfterAChangeDuringAListing(t *testing.T) {
	for _, kind := range []string{"tools", "prompts", "resources"} {
		t.Run(kind, func(t *testing.T) {
			var lists atomic.Int32
			entered, release := make(chan struct{}), make(chan struct{})
			opts := supervisor.WithListedHook(supervisor.ManagerOptions{}, func(_, k string) {
				if k != kind {
					return
				}
				if lists.Add(1) == 1 { // the first list: held while the change comes
					close(entered)
					<-release
				}
			})
			m := manage(t, opts)
			ctx := harness.Context(t)
			if err := m.Add(ctx, testServer(t, "s", testserver.Options{}, t.Name())); err != nil {
				t.Fatal(err)
			}
			<-entered
			c, ok := m.Client("s")
			if !ok {
				t.Fatal("no client")
			}
			method := map[string]string{"tools": messages.NotificationToolsListChanged,
				"prompts": messages.NotificationPromptsListChanged, "resources": messages.NotificationResourcesListChanged}[kind]
			if _, err := c.CallTool(ctx, "notify", map[string]any{"method": method}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond) // the notification reaches the manager meanwhile
			close(release)
			deadline := time.Now().Add(harness.Bound)
			for lists.Load() < 2 {
				if time.Now().After(deadline) {
					t.Fatalf("the change during the listing was dropped: %d %s lists", lists.Load(), kind)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
