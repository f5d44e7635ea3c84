package telemetry

import "go.opentelemetry.io/otel/attribute"

// ScopeName is the instrumentation scope of every tracer and meter this
// package creates.
const ScopeName = "github.com/mcpactor/mcpactor/telemetry"

// ScopeVersion is the version reported with ScopeName.
const ScopeVersion = "0.1.0"

// SchemaURL is the schema URL of the tracer and meter: the version of the
// OpenTelemetry semantic conventions whose general attributes (error.type,
// network.*, server.*, rpc.response.status_code) the MCP conventions
// reference (model/mcp/common.yaml of
// https://github.com/open-telemetry/semantic-conventions-genai cites
// v1.43.0). It is checked against go.opentelemetry.io/otel/semconv/v1.43.0
// in a test, so this package need not import that large package.
const SchemaURL = "https://opentelemetry.io/schemas/1.43.0"

// Attribute keys of the OpenTelemetry semantic conventions for MCP
// (https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md,
// status "development"). The names are exact; see docs/telemetry.md.
const (
	KeyMCPMethodName          = attribute.Key("mcp.method.name")
	KeyMCPProtocolVersion     = attribute.Key("mcp.protocol.version")
	KeyMCPSessionID           = attribute.Key("mcp.session.id")
	KeyMCPResourceURI         = attribute.Key("mcp.resource.uri")
	KeyJSONRPCRequestID       = attribute.Key("jsonrpc.request.id")
	KeyGenAIToolName          = attribute.Key("gen_ai.tool.name")
	KeyGenAIPromptName        = attribute.Key("gen_ai.prompt.name")
	KeyGenAIOperationName     = attribute.Key("gen_ai.operation.name")
	KeyGenAIToolCallArguments = attribute.Key("gen_ai.tool.call.arguments")
	KeyGenAIToolCallResult    = attribute.Key("gen_ai.tool.call.result")
	KeyNetworkTransport       = attribute.Key("network.transport")
	KeyNetworkProtocolName    = attribute.Key("network.protocol.name")
	KeyNetworkProtocolVersion = attribute.Key("network.protocol.version")
	KeyServerAddress          = attribute.Key("server.address")
	KeyServerPort             = attribute.Key("server.port")
	KeyErrorType              = attribute.Key("error.type")
	KeyRPCResponseStatusCode  = attribute.Key("rpc.response.status_code")
)

// Well-known attribute values.
const (
	// OperationExecuteTool is gen_ai.operation.name for tools/call.
	OperationExecuteTool = "execute_tool"

	// TransportPipe is network.transport for stdio.
	TransportPipe = "pipe"
	// TransportTCP is network.transport for Streamable HTTP (and SSE).
	TransportTCP = "tcp"
	// ProtocolHTTP is network.protocol.name for the HTTP transports.
	ProtocolHTTP = "http"

	// error.type values besides the JSON-RPC code (which is written as a
	// decimal string, e.g. "-32602").
	ErrorTypeToolError       = "tool_error"
	ErrorTypeTimeout         = "timeout"
	ErrorTypeCancelled       = "cancelled"
	ErrorTypeTransportClosed = "transport_closed"
	ErrorTypeOther           = "_OTHER"
)

// Our own attribute keys, under the project prefix "mcpactor.".
const (
	// KeyServerName is the configured name of the MCP server (the key of
	// the client's server table). It is on every span and metric point.
	KeyServerName = attribute.Key("mcpactor.server.name")
	// KeyQueueReason says what a request waited for: QueueHandshake or
	// QueueConcurrency (event EventQueued, metric MetricQueueWait).
	KeyQueueReason = attribute.Key("mcpactor.queue.reason")
	// KeyQueueWait is the seconds a request spent queued (EventDequeued).
	KeyQueueWait = attribute.Key("mcpactor.queue.wait")
	// KeyProgressValue, KeyProgressTotal and KeyProgressMessage carry the
	// fields of one notifications/progress (EventProgress).
	KeyProgressValue   = attribute.Key("mcpactor.progress.value")
	KeyProgressTotal   = attribute.Key("mcpactor.progress.total")
	KeyProgressMessage = attribute.Key("mcpactor.progress.message")
	// KeyCancelReason is the reason sent in notifications/cancelled
	// (EventCancelSent).
	KeyCancelReason = attribute.Key("mcpactor.cancel.reason")
	// KeyRetryAttempt numbers a retry, from 1 (EventRetry).
	KeyRetryAttempt = attribute.Key("mcpactor.retry.attempt")
	// KeyRetryReason says why a request was retried or resumed.
	KeyRetryReason = attribute.Key("mcpactor.retry.reason")
	// KeyDropReason classifies a dropped inbound frame (MetricFramesDropped).
	KeyDropReason = attribute.Key("mcpactor.drop.reason")
	// KeyRestartReason says why a server connection was restarted
	// (MetricRestarts).
	KeyRestartReason = attribute.Key("mcpactor.restart.reason")
	// KeyProbeVerdict is what a server/discover probe that was refused
	// found: ProbeSessionEra, on the probe's span (a probe the server
	// answers needs no verdict: its span is an ordinary success).
	KeyProbeVerdict = attribute.Key("mcpactor.probe.verdict")
	// KeyClusterGeneration and KeyClusterTenant are Peer.Generation and
	// Peer.Tenant: spans only.
	KeyClusterGeneration = attribute.Key("mcpactor.cluster.generation")
	KeyClusterTenant     = attribute.Key("mcpactor.cluster.tenant")
	// KeyTaskReason says why a task (StartTask) runs, e.g. why a
	// connection is made: first, restart, repair, session_expired.
	KeyTaskReason = attribute.Key("mcpactor.task.reason")
	// KeyClusterMember and KeyClusterOwner name the cluster members a hop
	// goes from and to (StartHop, StartHopServer).
	KeyClusterMember = attribute.Key("mcpactor.cluster.member")
	KeyClusterOwner  = attribute.Key("mcpactor.cluster.owner")
	// KeyExceptionMessage is the text of a failure recorded as an
	// EventException: a handler's error or panic, which the server that
	// asked is not told.
	KeyExceptionMessage = attribute.Key("exception.message")
)

// ProbeSessionEra is the value of KeyProbeVerdict: the server speaks the
// session era (initialize).
const ProbeSessionEra = "session era"

// Values of KeyQueueReason.
const (
	QueueHandshake   = "handshake"
	QueueConcurrency = "concurrency"
)

// Values of KeyDropReason, the kind argument of Telemetry.Dropped.
const (
	DropMalformed    = "malformed"
	DropOversized    = "oversized"
	DropUnknownID    = "unknown_id"
	DropLateResponse = "late_response"
	DropProgress     = "progress"
	DropNotification = "notification"
)

// Span event names (our own, under the project prefix).
const (
	EventQueued       = "mcpactor.queued"
	EventDequeued     = "mcpactor.dequeued"
	EventWritten      = "mcpactor.written"
	EventProgress     = "mcpactor.progress"
	EventCancelSent   = "mcpactor.cancel_sent"
	EventRetry        = "mcpactor.retry"
	EventResume       = "mcpactor.resume"
	EventReinitialize = "mcpactor.reinitialize"
	EventLateResponse = "mcpactor.late_response"
	// EventResent is the request sent again with a new JSON-RPC id; its
	// jsonrpc.request.id is the earlier id (Op.SetRequestID).
	EventResent = "mcpactor.resent"
	// EventException is OpenTelemetry's event of a failure
	// (https://opentelemetry.io/docs/specs/semconv/exceptions/exceptions-spans/),
	// on the SERVER span of a request whose handler failed.
	EventException = "exception"
)

// Names of the INTERNAL spans of StartTask: the work of one connection or
// of one refresh, so that its requests share a trace.
const (
	// TaskConnect is a connection's bring-up: server/discover or
	// initialize, notifications/initialized, the first lists.
	TaskConnect = "mcpactor.connect"
	// TaskRefresh is a manager's background refresh of a server's lists.
	TaskRefresh = "mcpactor.refresh"
	// TaskKeepalive is a manager's keepalive ping of a server.
	TaskKeepalive = "mcpactor.keepalive"
)

// SpanClusterHop is the name of the CLIENT span (on the member that
// forwards a call) and the SERVER span (on the member that owns the
// server) of a call that crosses the cluster (StartHop, StartHopServer).
const SpanClusterHop = "mcpactor.cluster.hop"

// SpanLateResponse is the name of the INTERNAL span recorded for a response
// that arrives after its request's span has ended (see Op.LateResponse).
const SpanLateResponse = "mcpactor.late_response"

// Metric instrument names. The first three are those of the semantic
// conventions; the others are our own.
const (
	MetricClientOperationDuration = "mcp.client.operation.duration"
	MetricClientSessionDuration   = "mcp.client.session.duration"
	MetricServerOperationDuration = "mcp.server.operation.duration"

	MetricInFlight      = "mcpactor.client.requests.in_flight"
	MetricFramesDropped = "mcpactor.transport.frames.dropped"
	MetricRestarts      = "mcpactor.client.restarts"
	MetricMailboxDepth  = "mcpactor.transport.mailbox.depth"
	MetricQueueWait     = "mcpactor.client.queue.wait.duration"
)

// durationBuckets are the explicit bucket boundaries, in seconds, the
// semantic conventions advise for the three mcp.* duration histograms.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// queueWaitBuckets are the bucket boundaries, in seconds, of
// MetricQueueWait: finer at the low end, where waits for a concurrency slot
// usually fall.
var queueWaitBuckets = []float64{0.0005, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60}
