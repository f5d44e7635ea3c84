package main

import (
	"testing"
	"time"
)

// TestDriversBringUp is a smoke test: every client brings up a few test
// servers, each answering tools/list with echo among its tools, and closes
// them, without errors. It asserts nothing about speed or memory.
func TestDriversBringUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			r := bringUp(spec{Client: d.name, Kind: "testserver", Servers: 3, Timeout: 30 * time.Second})
			if r.Errors > 0 || r.Tools == 0 {
				t.Fatalf("%d errors, %d tools per server: %s", r.Errors, r.Tools, r.FirstErr)
			}
		})
	}
}

// TestMeasureInChild runs one measurement the way the command does, in a
// fresh process, and checks that its result comes back.
func TestMeasureInChild(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	r := measureInChild(spec{Client: "wire", Kind: "testserver", Servers: 2, Timeout: 30 * time.Second})
	if r.Errors > 0 || r.Tools == 0 || r.Elapsed <= 0 {
		t.Fatalf("%+v", r)
	}
}
