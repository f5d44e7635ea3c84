package messages

import "encoding/json"

// LoggingLevel is an RFC 5424 severity (server/utilities/logging, 2025-11-25).
type LoggingLevel string

// The eight levels, least severe first.
const (
	// LevelDebug is detailed debugging information.
	LevelDebug LoggingLevel = "debug"
	// LevelInfo is general information.
	LevelInfo LoggingLevel = "info"
	// LevelNotice is a normal but significant event.
	LevelNotice LoggingLevel = "notice"
	// LevelWarning is a warning condition.
	LevelWarning LoggingLevel = "warning"
	// LevelError is an error condition.
	LevelError LoggingLevel = "error"
	// LevelCritical is a critical condition.
	LevelCritical LoggingLevel = "critical"
	// LevelAlert: action must be taken immediately.
	LevelAlert LoggingLevel = "alert"
	// LevelEmergency: the system is unusable.
	LevelEmergency LoggingLevel = "emergency"
)

// Severity orders the levels: 0 for debug up to 7 for emergency, -1 for an
// unknown level.
func (l LoggingLevel) Severity() int {
	switch l {
	case LevelDebug:
		return 0
	case LevelInfo:
		return 1
	case LevelNotice:
		return 2
	case LevelWarning:
		return 3
	case LevelError:
		return 4
	case LevelCritical:
		return 5
	case LevelAlert:
		return 6
	case LevelEmergency:
		return 7
	}
	return -1
}

// SetLevelParams are the params of logging/setLevel
// (server/utilities/logging, 2025-11-25).
type SetLevelParams struct {
	Meta  Meta         `json:"_meta,omitempty"`
	Level LoggingLevel `json:"level"`
}

// LoggingMessageParams are the params of notifications/message
// (server/utilities/logging, 2025-11-25).
type LoggingMessageParams struct {
	Meta   Meta         `json:"_meta,omitempty"`
	Level  LoggingLevel `json:"level"`
	Logger string       `json:"logger,omitempty"`
	// Data is any JSON value.
	Data json.RawMessage `json:"data"`
}
