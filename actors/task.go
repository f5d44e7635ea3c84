package actors

import (
	"context"

	"github.com/mcpactor/mcpactor/telemetry"
)

// StartTask begins the INTERNAL span of work done on the client's server
// on nobody's request (task is telemetry.TaskRefresh for a refresh of its
// lists, telemetry.TaskKeepalive for a keepalive ping), describing the
// server as the client's requests do. Pass the returned context to the
// work's requests: their spans are then its children, and each piece of
// work is one trace instead of one root trace per request. End the Op
// with the work's error. Nothing is allocated when nobody records.
func (c *Client) StartTask(ctx context.Context, task, reason string) (context.Context, *telemetry.Op) {
	if c.tel.Idle(ctx) {
		return ctx, nil
	}
	p := c.peer()
	return c.tel.StartTask(ctx, task, &p, reason)
}
