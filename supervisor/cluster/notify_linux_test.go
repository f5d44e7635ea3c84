//go:build linux

package cluster

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
)

// TestNotificationNamesTheServer: the application's notification handler
// on the owner hears the server as configured ("alpha"), with the tenant
// for a tenant's session ("alpha@alice", as errors name it), never the
// name the member's manager runs it under ("alpha.1a2b3c4d.4"), on both
// Handlers.Notification and Handlers.NotificationContext.
func TestNotificationNamesTheServer(t *testing.T) {
	for _, withContext := range []bool{false, true} {
		name := "Notification"
		if withContext {
			name = "NotificationContext"
		}
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var heard []string
			note := func(server string, n mcpactor.Notification) {
				if n.Method != "notifications/test/hello" {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				heard = append(heard, server)
			}
			// The only member of its cluster, in the test process (a
			// second member in one process races on gRPC's logger).
			run := strconv.FormatInt(time.Now().UnixNano(), 36)
			spec := memberSpec{Name: "owner", Endpoint: etcdFor(t).endpoint(), Prefix: "/test/" + t.Name() + "/" + run + "/",
				TTL: 2 * time.Second, Secret: "test-secret-" + run, Run: run}
			cfg := spec.config()
			if withContext {
				cfg.Runtime.Handlers.NotificationContext = func(_ context.Context, server string, n mcpactor.Notification) { note(server, n) }
			} else {
				cfg.Runtime.Handlers.Notification = note
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			owner, err := Start(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				sctx, scancel := context.WithTimeout(context.Background(), waitLimit)
				defer scancel()
				if err := owner.Stop(sctx); err != nil {
					t.Errorf("Stop: %v", err)
				}
			})
			args := map[string]any{"method": "notifications/test/hello"}
			for _, tenant := range []string{"", "alice"} {
				if _, err := owner.As(tenant).CallTool(ctx, "alpha", "notify", args); err != nil {
					t.Fatalf("notify as %q: %v", tenant, err)
				}
			}
			deadline := time.Now().Add(waitLimit)
			for {
				mu.Lock()
				n := len(heard)
				mu.Unlock()
				if n >= 2 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d notifications heard within %v, want 2", n, waitLimit)
				}
				time.Sleep(20 * time.Millisecond)
			}
			mu.Lock()
			defer mu.Unlock()
			slices.Sort(heard)
			if !slices.Equal(heard, []string{"alpha", "alpha@alice"}) {
				t.Errorf("the handler heard the servers %q; want [alpha alpha@alice]", heard)
			}
		})
	}
}
