package main

import (
	"testing"
	"time"
)

// TestClientsEcho is a smoke test: every client makes a few concurrent
// echo calls with unique messages and gets each one back, without errors.
// It asserts nothing about speed.
func TestClientsEcho(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	cfg := config{duration: 100 * time.Millisecond}
	srv := benchServer("")
	for _, name := range clientOrder {
		t.Run(name, func(t *testing.T) {
			s := measureOne(cfg, srv, name, 4, false)
			if s.Errors+s.Mismatches > 0 || s.Calls == 0 {
				t.Fatalf("%d calls, %d errors, %d mismatches: %s", s.Calls, s.Errors, s.Mismatches, s.FirstErr)
			}
		})
	}
}
