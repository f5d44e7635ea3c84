package messages

// OutputSchemaError is why a tool's structured output was refused by the
// opt-in check against its outputSchema: the first violation found, and
// where in structuredContent (a JSON pointer; empty for the whole). It is
// the Err of an *InvalidResultError (errors.Is ErrInvalidResult)
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema).
type OutputSchemaError struct {
	Tool      string
	Location  string
	Violation string
}

// Error reads `tool <tool>: structured output does not match its
// outputSchema at <location>: <violation>`, the location only when known.
func (e *OutputSchemaError) Error() string {
	s := "tool " + e.Tool + ": structured output does not match its outputSchema"
	if e.Location != "" {
		s += " at " + e.Location
	}
	return s + ": " + e.Violation
}
