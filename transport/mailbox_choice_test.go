package transport

import (
	"testing"
)

// useMailbox gives the stdio transports a test spawns protoactor's default
// mailbox (protoactors true) or ours, until the test ends. Transport tests
// do not run in parallel, so the switch is the test's alone.
func useMailbox(t *testing.T, protoactors bool) {
	t.Helper()
	was := useDefaultMailbox
	useDefaultMailbox = protoactors
	t.Cleanup(func() { useDefaultMailbox = was })
}

// The switch selects the mailbox: ours, given to the writer as its home,
// or protoactor's default, with no home.
func TestStdioMailboxChoice(t *testing.T) {
	for _, protoactors := range []bool{false, true} {
		useMailbox(t, protoactors)
		var ours *ownMailbox
		mb := stdioMailbox(&ours, func() int { return 0 })()
		_, isOurs := mb.(*ownMailbox)
		if isOurs == protoactors || (ours != nil) == protoactors {
			t.Errorf("protoactor's mailbox asked: %v; got %T, home %v", protoactors, mb, ours)
		}
		if h := ours.setHome(); (h == nil) != protoactors {
			t.Errorf("protoactor's mailbox asked: %v; home %v", protoactors, h)
		}
	}
}

// A representative part of the stdio suite runs again under the mailbox
// the rest of the package does not use: protoactor's default unless
// MCPACTOR_TRANSPORT_MAILBOX=default chose it for the whole run, ours
// then. So `go test` holds both to the same behaviour, and the way back to
// protoactor's mailbox (mailboxEnv) keeps working.
func TestStdioUnderTheOtherMailbox(t *testing.T) {
	useMailbox(t, !useDefaultMailbox)
	for _, tc := range []struct {
		name string
		test func(*testing.T)
	}{
		{"echo", TestConcurrentEchoes},
		{"out of order", TestOutOfOrderAndStringIDs},
		{"runs", TestReaderRunsNeverWaitForTheNextFrame},
		{"timeout", TestNeverAnsweredCallTimesOutAndIsCancelled},
		{"cancellation", TestContextCancellation},
		{"deadlines", TestDeadlinesOfManyCalls},
		{"close", TestCloseDuringForcedContext},
		{"stopped by parent", TestStoppedByParent},
		{"crash", TestServerExitsMidRequest},
		{"exit after requests", TestExitAfterRequests},
		{"write failure", TestWriteFailureFailsAtOnce},
		{"backpressure", TestBackpressure},
		{"write queue", TestWriteQueueIsBoundedInBytes},
		{"panic", TestTransportActorPanicIsContained},
		{"panic on the reader's path", TestReaderPathPanicStopsTheTransport},
		{"dialed", TestDialedStream},
	} {
		t.Run(tc.name, tc.test)
	}
}

// The HTTP transports are given ours too (without a home), and protoactor's
// by the same switch.
func TestHTTPMailboxChoice(t *testing.T) {
	for _, protoactors := range []bool{false, true} {
		useMailbox(t, protoactors)
		_, ours := httpMailbox()().(*ownMailbox)
		if ours == protoactors {
			t.Errorf("default mailbox asked %v: got ours %v", protoactors, ours)
		}
	}
}

// A representative part of the HTTP suite, under the mailbox the package
// was not started with: answers handed over by the POSTs' goroutines,
// streams resumed, sessions lost, calls ended every way, the legacy
// transport.
func TestHTTPUnderTheOtherMailbox(t *testing.T) {
	useMailbox(t, !useDefaultMailbox)
	for _, tc := range []struct {
		name string
		test func(*testing.T)
	}{
		{"round trip", TestHTTPRoundTrip},
		{"held behind initialized", TestHTTPHeldBehindInitialized},
		{"string ids and errors", TestHTTPStringIDsAndErrors},
		{"session expired", TestHTTPSessionExpired},
		{"stream resumed", TestHTTPStreamResumed},
		{"never answers", TestHTTPNeverAnswers},
		{"close with requests in flight", TestHTTPCloseWithRequestsInFlight},
		{"frame over cap", TestHTTPFrameOverCap},
		{"cancelled", TestHTTPCallCanceled},
		{"listener resumes", TestHTTPListenerResumes},
		{"legacy", TestLegacySSE},
		{"legacy stream ends", TestLegacySSEStreamEnds},
	} {
		t.Run(tc.name, tc.test)
	}
}
