package actors

import (
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// A Spec holds credentials in places a reader does not think of as
// secret: a URL's query, a header, an environment value, an argument. It
// is printed (%v, %+v, %#v) and logged (slog) without them: the URL masked,
// headers and environment by name only, arguments counted. Print the
// fields one by one for what else is needed.

// String describes the server without its credentials.
func (c Spec) String() string {
	var b strings.Builder
	b.WriteString("ServerConfig{")
	b.WriteString(c.TransportType())
	switch {
	case c.Stdio.Command != "":
		b.WriteString(" " + strconv.Quote(c.Stdio.Command))
		if len(c.Stdio.Args) > 0 {
			fmt.Fprintf(&b, " (%d args)", len(c.Stdio.Args))
		}
	case c.HTTP.URL != "":
		b.WriteString(" " + redact.URL(c.HTTP.URL))
	}
	if len(c.Stdio.Env) > 0 {
		b.WriteString(" env " + strings.Join(sortedNames(c.Stdio.Env), ","))
	}
	if len(c.HTTP.Headers) > 0 {
		b.WriteString(" headers " + strings.Join(sortedNames(c.HTTP.Headers), ","))
	}
	if c.HTTP.Auth != nil {
		fmt.Fprintf(&b, " auth %T", c.HTTP.Auth)
	}
	if c.Identity != "" {
		b.WriteString(" identity " + strconv.Quote(c.Identity))
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String, for %#v.
func (c Spec) GoString() string { return c.String() }

// LogValue is String, for slog.
func (c Spec) LogValue() slog.Value { return slog.StringValue(c.String()) }

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
