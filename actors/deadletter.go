package actors

// See transport/deadletter.go: a message to a client actor that has just
// stopped is expected, and must not start protoactor's dead-letter throttle.

func (handshakeDone) IgnoreDeadLetterLogging()   {}
func (handlerDone) IgnoreDeadLetterLogging()     {}
func (closeClient) IgnoreDeadLetterLogging()     {}
func (forceClient) IgnoreDeadLetterLogging()     {}
func (teardownDone) IgnoreDeadLetterLogging()    {}
func (reconnectClient) IgnoreDeadLetterLogging() {}
