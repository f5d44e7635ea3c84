package measure

import "testing"

// CheckClients is the smoke test of a throughput command, one subtest per
// client of clients: measure makes a short measurement of the client
// the command's own way (so that its connect and close are tested too),
// and every call must come back with the text expected. It asserts nothing
// about speed.
func CheckClients(t *testing.T, clients []string, measure func(t *testing.T, client string) Sample) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for _, name := range clients {
		t.Run(name, func(t *testing.T) {
			s := measure(t, name)
			if s.Errors+s.Mismatches > 0 || s.Calls == 0 {
				t.Fatalf("%d calls, %d errors, %d mismatches: %s", s.Calls, s.Errors, s.Mismatches, s.FirstErr)
			}
		})
	}
}
