package transport

// Messages to a transport actor can arrive after it has stopped: a caller
// racing the end, a timer, the writer's last writeDone. The caller learns
// the outcome from the Conn's done channel, so the dead letter is expected;
// opting out of protoactor's dead-letter logging also keeps its throttle
// goroutine from outliving the runtime (messages/deadletter.go).

func (*call) IgnoreDeadLetterLogging()           {}
func (cancelCall) IgnoreDeadLetterLogging()      {}
func (notify) IgnoreDeadLetterLogging()          {}
func (respond) IgnoreDeadLetterLogging()         {}
func (inbound) IgnoreDeadLetterLogging()         {}
func (inboundBatch) IgnoreDeadLetterLogging()    {}
func (closeRequest) IgnoreDeadLetterLogging()    {}
func (forceClose) IgnoreDeadLetterLogging()      {}
func (Established) IgnoreDeadLetterLogging()     {}
func (readerDone) IgnoreDeadLetterLogging()      {}
func (stderrDone) IgnoreDeadLetterLogging()      {}
func (procExited) IgnoreDeadLetterLogging()      {}
func (escalate) IgnoreDeadLetterLogging()        {}
func (drainExpiry) IgnoreDeadLetterLogging()     {}
func (writeDone) IgnoreDeadLetterLogging()       {}
func (eofExpiry) IgnoreDeadLetterLogging()       {}
func (writeStallCheck) IgnoreDeadLetterLogging() {}
func (sessionAssigned) IgnoreDeadLetterLogging() {}
func (postFailed) IgnoreDeadLetterLogging()      {}
func (sessionLost) IgnoreDeadLetterLogging()     {}
func (drained) IgnoreDeadLetterLogging()         {}
func (listenerState) IgnoreDeadLetterLogging()   {}
