package supervisor

// Messages to the manager actor can arrive after it has stopped: a timer,
// a goroutine reporting back, a server's notification. That is expected;
// opting out of protoactor's dead-letter logging also keeps its throttle
// goroutine from outliving the runtime (see messages/deadletter.go).

func (awaitGate) IgnoreDeadLetterLogging()     {}
func (gateTime) IgnoreDeadLetterLogging()      {}
func (addServer) IgnoreDeadLetterLogging()     {}
func (removeServer) IgnoreDeadLetterLogging()  {}
func (reloadServers) IgnoreDeadLetterLogging() {}
func (closeManager) IgnoreDeadLetterLogging()  {}
func (resolved) IgnoreDeadLetterLogging()      {}
func (toolsListed) IgnoreDeadLetterLogging()   {}
func (toolsChanged) IgnoreDeadLetterLogging()  {}
func (restartNow) IgnoreDeadLetterLogging()    {}
func (breakerRetry) IgnoreDeadLetterLogging()  {}
func (keepaliveTick) IgnoreDeadLetterLogging() {}
func (pingDone) IgnoreDeadLetterLogging()      {}
func (removed) IgnoreDeadLetterLogging()       {}
func (callsFailing) IgnoreDeadLetterLogging()  {}
func (awaitStarted) IgnoreDeadLetterLogging()  {}
