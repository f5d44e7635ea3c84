package actors

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// The opt-in check of a tool's structured output against its
// outputSchema: "Clients SHOULD validate structured results against this
// schema"
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema).
// Schemas are JSON Schema 2020-12 unless they name another draft
// ($schema), compiled on a tool's first checked call with a validator
// that reads nothing outside the schema: a $ref to a file or a URL is a
// schema error, never a read.

// toolSchemas are the output schemas of a session's tools, from the last
// tools/list read, by tool name; compiled on first use.
type toolSchemas struct {
	raw      map[string]json.RawMessage
	compiled sync.Map // tool name -> compiledSchema
}

type compiledSchema struct {
	schema *jsonschema.Schema
	err    error // the schema does not compile
}

// noteOutputSchemas gathers a page of tools' output schemas into acc and,
// on the last page, makes them the session's.
func (c *Client) noteOutputSchemas(tools []messages.Tool, acc map[string]json.RawMessage, last bool) map[string]json.RawMessage {
	if acc == nil {
		acc = map[string]json.RawMessage{}
	}
	for _, t := range tools {
		if len(t.OutputSchema) > 0 && !bytes.Equal(t.OutputSchema, []byte("null")) {
			acc[t.Name] = t.OutputSchema
		}
	}
	if s := c.gen.Load().established(); last && s != nil {
		s.outputs.Store(&toolSchemas{raw: acc})
	}
	return acc
}

// checkOutput checks the structured output of a call of tool against
// the tool's outputSchema, listing the tools first if they have not been
// listed on this connection. A tool without an outputSchema, and a
// result with isError (a failure is not shaped as a success), pass. A
// violation is a *callerr.Error of kind ErrBadResponse naming the
// tool, the Location and the Violation.
func (c *Client) checkOutput(ctx context.Context, tool string, res *messages.CallToolResult) error {
	if res == nil || res.IsError {
		return nil
	}
	g, err := c.current(ctx)
	if err != nil {
		return err
	}
	schemas := g.sess.outputs.Load()
	if schemas == nil {
		if _, err := c.ListTools(ctx); err != nil {
			return err
		}
		if schemas = g.sess.outputs.Load(); schemas == nil {
			return nil // the connection was replaced meanwhile: its successor checks the next call
		}
	}
	raw, ok := schemas.raw[tool]
	if !ok {
		return nil
	}
	cs := schemas.compile(tool, raw)
	violation := func(msg, at string) error {
		return callerr.NewInvalidResult(&callerr.Error{Server: c.name, Method: messages.MethodToolsCall,
			Tool: tool, Location: at, Violation: msg, Body: snippet(res.StructuredContent)})
	}
	if cs.err != nil {
		return violation("the tool's outputSchema does not compile: "+cs.err.Error(), "")
	}
	if len(res.StructuredContent) == 0 {
		return violation("no structuredContent, though the tool declares an outputSchema", "")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.StructuredContent))
	if err != nil {
		return violation("structuredContent is not JSON: "+err.Error(), "")
	}
	if err := cs.schema.Validate(doc); err != nil {
		msg, at := firstViolation(err)
		return violation(msg, at)
	}
	return nil
}

// compile compiles the schema of tool once.
func (s *toolSchemas) compile(tool string, raw json.RawMessage) compiledSchema {
	if v, ok := s.compiled.Load(tool); ok {
		return v.(compiledSchema)
	}
	cs := compileSchema(raw)
	s.compiled.Store(tool, cs)
	return cs
}

// schemaURL is where a tool's schema sits for the compiler; it is never
// fetched.
const schemaURL = "urn:mcpactor:output-schema"

func compileSchema(raw json.RawMessage) compiledSchema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return compiledSchema{err: err}
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.UseLoader(noLoader{})
	if err := comp.AddResource(schemaURL, doc); err != nil {
		return compiledSchema{err: err}
	}
	sch, err := comp.Compile(schemaURL)
	return compiledSchema{schema: sch, err: err}
}

// noLoader refuses every schema the compiler would fetch: a server's
// schema reads nothing of the client's machine or network.
type noLoader struct{}

var errNoLoad = errors.New("schemas are not fetched: a $ref must point inside the outputSchema")

func (noLoader) Load(string) (any, error) { return nil, errNoLoad }

var printer = message.NewPrinter(language.English)

// firstViolation is the first leaf of a validation error's tree: what it
// says and where in the output.
func firstViolation(err error) (msg, at string) {
	var v *jsonschema.ValidationError
	if !errors.As(err, &v) {
		return err.Error(), ""
	}
	for len(v.Causes) > 0 {
		v = v.Causes[0]
	}
	return v.ErrorKind.LocalizedString(printer), "/" + strings.Join(v.InstanceLocation, "/")
}

// outputsOf is a session's schemas holder (see session.outputs).
type outputsOf = atomic.Pointer[toolSchemas]
