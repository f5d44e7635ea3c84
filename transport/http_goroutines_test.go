package transport

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime/metrics"
	"sync"
	"testing"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
)

// goroutinesCreated is the process's count of goroutines made so far.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// plainJSONServer answers every POSTed request at once with a JSON body
// (an initialize result for initialize, an echo's for anything else) and
// every notification with 202: a server whose own goroutines per request
// are net/http's alone.
func plainJSONServer(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	if json.Unmarshal(body, &m) != nil || m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result := `{"content":[{"type":"text","text":"ok"}]}`
	if m.Method == messages.MethodInitialize {
		result = `{"protocolVersion":"` + messages.Version20251125 + `","capabilities":{"tools":{}},"serverInfo":{"name":"plain","version":"1"}}`
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`)
}

// goroutinesPerCall runs inFlight callers making each calls twice (the
// first time to warm connections and goroutines up) and returns the
// goroutines made per call the second time, the callers' own left out.
func goroutinesPerCall(inFlight, each int, call func()) float64 {
	run := func() {
		var wg sync.WaitGroup
		for range inFlight {
			wg.Go(func() {
				for range each {
					call()
				}
			})
		}
		wg.Wait()
	}
	run()
	before := goroutinesCreated()
	run()
	return float64(goroutinesCreated()-before-uint64(inFlight)) / float64(inFlight*each)
}

// An HTTP call hands its request to goroutines that are already there,
// whether it comes alone or among others: a goroutine made per call (to
// run the actor, to send the POST) is a wake-up and a stack to grow that a
// plain net/http client does not pay. The plain client, posting to the
// same server (in this process), is the yardstick: what it makes per call
// is the server's.
func TestHTTPCallsMakeNoGoroutines(t *testing.T) {
	idleFor(t, harness.Bound) // however slow the machine between two calls
	url := startHandler(t, http.HandlerFunc(plainJSONServer))
	c := dialHTTP(t, url, clientOpts{})
	c.initialize(messages.Version20251125)
	plain := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	t.Cleanup(plain.CloseIdleConnections)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	for _, inFlight := range []int{1, 8} {
		const each = 50
		base := goroutinesPerCall(inFlight, each, func() {
			req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := plain.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
		params := json.RawMessage(`{"name":"echo","arguments":{}}`)
		ours := goroutinesPerCall(inFlight, each, func() {
			if _, err := c.conn.Call(harness.Context(t), "tools/call", params, RequestOptions{}); err != nil {
				t.Error(err)
			}
		})
		t.Logf("%d in flight: %.2f goroutines made per call, %.2f by the plain client's", inFlight, ours, base)
		if ours > base+0.2 {
			t.Errorf("%d in flight: %.2f goroutines made per call, the plain client's %.2f: want no more than %.2f", inFlight, ours, base, base+0.2)
		}
	}
}
