package transport

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// Issue 33: a server's retry: is honoured only up to MaxRetryDelay. A
// retry: of a day would otherwise silence the GET listener (and hold a
// broken request's resumption) for a day.
func TestServerRetryCapped(t *testing.T) {
	const day = 24 * time.Hour
	capped := func(cfg *HTTPConfig) { cfg.MaxRetryDelay = 50 * time.Millisecond }

	t.Run("listener", func(t *testing.T) {
		p := startHTTPPeer(t, testserver.Options{HTTPGetCloseAfter: 1, HTTPRetry: day})
		c := dialHTTP(t, p.url, clientOpts{tune: capped})
		c.initialize(messages.Version20251125)
		c.conn.Listen(harness.Context(t))
		const n = 3 // each closes the stream: the listener must come back for the next
		for i := range n {
			if _, err := c.call(harness.Context(t), "notify", map[string]any{"method": fmt.Sprint("notifications/n", i)}, RequestOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range n {
			if got := ownerNext[InboundNotification](t, c.owner); got.Method != fmt.Sprint("notifications/n", i) {
				t.Fatalf("notification %d: %s", i, got.Method)
			}
		}
	})
	t.Run("resumption", func(t *testing.T) {
		p := startHTTPPeer(t, testserver.Options{HTTPStream: true, HTTPDropStreams: 1, HTTPRetry: day})
		c := dialHTTP(t, p.url, clientOpts{tune: capped})
		c.initialize(messages.Version20251125)
		c.mustEcho("resumed within the cap")
	})
}
