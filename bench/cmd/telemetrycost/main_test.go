package main

import (
	"os"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

func TestMain(m *testing.M) {
	measure.RunStdioServerIfChild()
	os.Exit(m.Run())
}

// TestModes is the smoke test: mcpactor, in every telemetry mode, makes a
// few concurrent calls and gets each answer. It asserts nothing about
// cost.
func TestModes(t *testing.T) {
	measure.CheckClients(t, []string{"off", "noop", "recording"}, func(t *testing.T, name string) measure.Sample {
		return measureMode(modeNamed(name), measure.StdioServerOf(measure.ServerFast, ""),
			measure.CallSpec{Load: measure.EchoFixed, InFlight: 4, Duration: 100 * time.Millisecond})
	})
}
