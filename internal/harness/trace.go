package harness

import sdktrace "go.opentelemetry.io/otel/sdk/trace"

// HasEvent reports whether s has an event called name.
func HasEvent(s sdktrace.ReadOnlySpan, name string) bool {
	for _, e := range s.Events() {
		if e.Name == name {
			return true
		}
	}
	return false
}
