package mcpactor

import (
	"errors"
	"testing"
)

// The Fence reaches both transports' configurations (whichever the
// connection takes), and Approve's view of the server is the
// ServerConfig as given, function fields included.
func TestServerConfigFenceCarried(t *testing.T) {
	lapsed := errors.New("lapsed")
	in := ServerConfig{Command: "server", Fence: func() error { return lapsed }}
	srv, err := in.server("fenced")
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{"Stdio": srv.Spec.Stdio.Fence, "HTTP": srv.Spec.HTTP.Fence, "Config": serverOf(srv).Config.Fence} {
		if f == nil || f() != lapsed {
			t.Errorf("%s: the Fence was not carried", name)
		}
	}
}
