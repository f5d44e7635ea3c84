package main

import (
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// TestClientsEcho is the smoke test: every client makes a few concurrent
// echo calls with unique messages and gets each one back, without errors.
func TestClientsEcho(t *testing.T) {
	cfg := config{CallFlags: measure.CallFlags{Duration: 100 * time.Millisecond}}
	srv := benchServer("")
	measure.CheckClients(t, func(_ *testing.T, name string) measure.Sample {
		return measureOne(cfg, srv, name, 4, false)
	})
}
