package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// TestClientsEcho is the smoke test: every client, against every server,
// makes a few concurrent echo calls with unique messages and gets each one
// back, without errors; against the stateless server, every client speaks
// the 2026-07-28 revision.
func TestClientsEcho(t *testing.T) {
	cfg := &config{CallFlags: measure.CallFlags{Duration: 100 * time.Millisecond}}
	for _, srv := range serverOrder {
		t.Run(srv, func(t *testing.T) {
			measure.CheckClients(t, clientOrder, func(t *testing.T, name string) measure.Sample {
				s := measureOne(cfg, srv, measure.EchoUnique, name, 4, false)
				if statelessServer(srv) && s.Protocol != versionModern {
					t.Errorf("protocol %q against the stateless %s server, want %s", s.Protocol, srv, versionModern)
				}
				return s
			})
		})
	}
}

func TestReadEvents(t *testing.T) {
	stream := "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n" +
		": comment\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":7,\"result\":{}}\r\n\r\n"
	var got string
	err := readEvents(strings.NewReader(stream), func(data []byte) bool {
		var m wireMessage
		if json.Unmarshal(data, &m) != nil || string(m.ID) != "7" {
			return false
		}
		got = string(data)
		return true
	})
	if err != nil || got != "{\"jsonrpc\":\"2.0\",\n\"id\":7,\"result\":{}}" {
		t.Fatalf("readEvents: %q, %v", got, err)
	}
	if err := readEvents(strings.NewReader("data: {}\n\n"), func([]byte) bool { return false }); err != errNotOurAns {
		t.Fatalf("a stream without the answer: %v", err)
	}
}
