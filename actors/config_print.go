package actors

import (
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// A ServerConfig holds credentials in places a reader does not think of as
// secret: a URL's query, a header, an environment value, an argument. It
// is printed (%v, %+v, %#v) and logged (slog) without them: the URL masked,
// headers and environment by name only, arguments counted. Print the
// fields one by one for what else is needed.

// String describes the server without its credentials.
func (c ServerConfig) String() string {
	var b strings.Builder
	b.WriteString("ServerConfig{")
	b.WriteString(c.TransportType())
	switch {
	case c.Command != "":
		b.WriteString(" " + strconv.Quote(c.Command))
		if len(c.Args) > 0 {
			fmt.Fprintf(&b, " (%d args)", len(c.Args))
		}
	case c.URL != "":
		b.WriteString(" " + redact.URL(c.URL))
	}
	if len(c.Env) > 0 {
		b.WriteString(" env " + strings.Join(sortedNames(c.Env), ","))
	}
	if len(c.Headers) > 0 {
		b.WriteString(" headers " + strings.Join(sortedNames(c.Headers), ","))
	}
	if c.Auth != nil {
		fmt.Fprintf(&b, " auth %T", c.Auth)
	}
	if c.Identity != "" {
		b.WriteString(" identity " + strconv.Quote(c.Identity))
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String, for %#v.
func (c ServerConfig) GoString() string { return c.String() }

// LogValue is String, for slog.
func (c ServerConfig) LogValue() slog.Value { return slog.StringValue(c.String()) }

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
