package actors

// injectPanic makes the client actor behind c panic with value, as a bug
// in it would, so that tests can check what a panic leaves behind: the
// actor stops (never restarted with stale state), its transport's process
// is killed and reaped, every pending call fails once, and Done closes.
// It is fault injection for tests; nothing in the runtime calls it.
func injectPanic(c *Client, value any) { c.root.Send(c.pid, clientPanic{value: value}) }
