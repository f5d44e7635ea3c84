package mcpactor

import "github.com/mcpactor/mcpactor/actors"

// Stats count what a client dropped or refused, over all its connections,
// and the user callbacks that misbehaved (Client.Stats); each field is
// documented on the type.
type Stats = actors.Stats
