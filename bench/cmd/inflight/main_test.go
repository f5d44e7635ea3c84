package main

import (
	"os"
	"testing"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// TestMain lets the test binary serve as the benchmark's servers and as
// a measurement's process when re-executed.
func TestMain(m *testing.M) {
	measure.RunStdioServerIfChild()
	runIfChild()
	os.Exit(m.Run())
}

// TestClientsInFlight is the smoke test: every client, in a process of
// its own, holds 50 calls of a 20 ms tool at once and gets every answer.
// It asserts nothing about time or memory.
func TestClientsInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	cfg := &config{ms: 20, server: measure.ServerFast}
	for _, name := range measure.StdioClients {
		t.Run(name, func(t *testing.T) {
			s := measureInChild(cfg, name, 50)
			if s.Errors > 0 || s.Calls != 50 || s.HWM == 0 {
				t.Fatalf("%s", s)
			}
		})
	}
}

// TestClientsIdle is the idle measurement's smoke test: every client (and
// the process that connects nothing), in a process of its own, connects,
// answers one call and reports its memory. It asserts nothing about
// memory but that it was read.
func TestClientsIdle(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	cfg := &config{ms: 0, server: measure.ServerFast}
	for _, name := range append([]string{noClient}, measure.StdioClients...) {
		t.Run(name, func(t *testing.T) {
			var s idleSample
			if err := runChild(cfg, name, 0, &s); err != nil || s.Errors > 0 || s.RSS == 0 || s.Floor == 0 {
				t.Fatalf("%+v, %v", s, err)
			}
		})
	}
}
