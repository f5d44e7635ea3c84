package messages

import (
	"strings"

	"github.com/mcpactor/mcpactor/internal/errkind"
)

// ConfigError lists what is wrong with a server configuration, in the
// words users of other MCP clients know.
type ConfigError struct {
	Server   string
	Problems []string
}

// Error lists the problems, separated by "; ".
func (e *ConfigError) Error() string { return strings.Join(e.Problems, "; ") }

// Is makes errors.Is(err, mcpactor.ErrConfig) true.
func (e *ConfigError) Is(target error) bool { return target == errkind.ErrConfig }
