package transport

import (
	"testing"

	"github.com/mcpactor/mcpactor/telemetry"
)

// The transport writes network.protocol.version itself (it does not
// import telemetry): it must write it as telemetry does.
func TestHTTPVersionAsTelemetryWritesIt(t *testing.T) {
	for _, v := range [][2]int{{0, 0}, {1, 0}, {1, 1}, {2, 0}, {3, 0}, {2, 1}} {
		if got, want := httpVersion(v[0], v[1]), telemetry.HTTPProtocolVersion(v[0], v[1]); got != want {
			t.Errorf("HTTP/%d.%d: %q, telemetry writes %q", v[0], v[1], got, want)
		}
	}
}
