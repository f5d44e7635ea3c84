package config

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// An Entry holds credentials in places a reader does not think of as
// secret: a URL's query, a header, an environment value, an argument, the
// auth object. It is printed (%v, %+v, %#v) and logged (slog) without
// them, as a server shown to a person for approval must be: the URL
// masked, headers and environment by name only, arguments counted, the
// auth object as Auth prints.

// String describes the entry without its credentials.
func (e Entry) String() string {
	var b strings.Builder
	b.WriteString("Entry{" + strconv.Quote(e.Name) + " " + e.TransportType())
	switch {
	case e.Command != "":
		b.WriteString(" " + strconv.Quote(e.Command))
		if len(e.Args) > 0 {
			fmt.Fprintf(&b, " (%d args)", len(e.Args))
		}
	case e.URL != "":
		b.WriteString(" " + redact.URL(e.URL))
	}
	if len(e.Env) > 0 {
		b.WriteString(" env " + strings.Join(sortedKeys(e.Env), ","))
	}
	if len(e.Headers) > 0 {
		b.WriteString(" headers " + strings.Join(sortedKeys(e.Headers), ","))
	}
	if e.Auth != nil {
		b.WriteString(" " + e.Auth.String())
	}
	if e.Identity != "" {
		b.WriteString(" identity " + strconv.Quote(e.Identity))
	}
	b.WriteString(" from " + e.Source.String() + "}")
	return b.String()
}

// GoString is String, for %#v.
func (e Entry) GoString() string { return e.String() }

// LogValue is String, for slog.
func (e Entry) LogValue() slog.Value { return slog.StringValue(e.String()) }
