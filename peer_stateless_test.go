package mcpactor_test

// What only the 2026-07-28 era has, against the go-sdk server, which
// speaks it over stdio and over HTTP (peer_gosdk_test.go).

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// TestMethodsOfTheEra: in the 2026-07-28 era Ping is answered without a
// ping on the wire (the era has none), and NotifyRootsChanged says the era
// does not have it: nothing goes on the wire for either.
func TestMethodsOfTheEra(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		if p.sent != nil {
			c, w := p.c, p.sent
			checkStatelessMethodsOfTheEra(t, c)
			for _, m := range w.sent(t) {
				if m.Method == messages.MethodPing {
					t.Error("ping went on the wire in the stateless era")
				}
			}

			return
		}
		checkStatelessMethodsOfTheEra(t, h.c)
		for _, ex := range h.wire() {
			if ex.isPost(messages.MethodPing) || ex.isPost(messages.NotificationRootsListChanged) {
				t.Errorf("%s went on the wire in the stateless era", ex)
			}
		}

	}, gosdkStdioStateless, gosdkHTTPStateless)
}

// checkStatelessMethodsOfTheEra calls what the stateless era answers
// without its method: Ping is answered, NotifyRootsChanged says the era
// does not have it.
func checkStatelessMethodsOfTheEra(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	if err := c.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	var unsupported *mcpactor.Error
	if err := c.NotifyRootsChanged(ctx); !errors.Is(err, mcpactor.ErrUnsupported) || !(errors.As(err, &unsupported) && errors.Is(unsupported, mcpactor.ErrUnsupported)) {
		t.Errorf("NotifyRootsChanged: %v, want ErrUnsupported", err)
	}
}

// TestListenBroken breaks the subscriptions/listen stream
// right after the server acknowledged it: the runtime listens again, and a
// later tools/list_changed still reaches Handlers.Notification.
func TestListenBroken(t *testing.T) {
	run(t, func(t *testing.T, pc *peerConn) {
		h := pc.http
		h.peer.proxy.cutOnce(h.id, afterEventWith(messages.MethodSubscriptionsListen, messages.NotificationSubscriptionsAcknowledged))
		callOK(t, h.c, "test_simple_text", nil)
		h.waitWire(t, "a second subscriptions/listen stream", func(ex exchange) bool {
			return ex.isPost(messages.MethodSubscriptionsListen) && !ex.Cut && ex.Status == http.StatusOK &&
				len(postsOf(h.wire(), messages.MethodSubscriptionsListen)) >= 2
		})
		checkGoSDKToolListChanged(t, h.c, h.rec)
		listens := postsOf(h.wire(), messages.MethodSubscriptionsListen)
		if !listens[0].Cut {
			t.Errorf("the first listen stream was not the one cut:\n%s", dumpExchanges(listens))
		}

	}, gosdkHTTPStateless.own(false))
}
