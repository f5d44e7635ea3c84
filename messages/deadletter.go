package messages

// The actor messages may reach an actor that has just stopped (a transport
// that ended while its server was still talking, say). That is expected,
// not an error worth a log line, and protoactor's dead-letter logging starts
// a throttle goroutine that would outlive the runtime's Stop. Each message
// type therefore opts out (actor.IgnoreDeadLetterLogging).

// IgnoreDeadLetterLogging implements actor.IgnoreDeadLetterLogging.
func (InboundRequest) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging implements actor.IgnoreDeadLetterLogging.
func (InboundNotification) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging implements actor.IgnoreDeadLetterLogging.
func (TransportClosed) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging implements actor.IgnoreDeadLetterLogging.
func (SessionExpired) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging implements actor.IgnoreDeadLetterLogging.
func (ServerReady) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging implements actor.IgnoreDeadLetterLogging.
func (ServerDown) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging implements actor.IgnoreDeadLetterLogging.
func (RestartServer) IgnoreDeadLetterLogging() {}
