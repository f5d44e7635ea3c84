package measure

import (
	"fmt"
	"strconv"

	"github.com/mcpactor/mcpactor/bench/internal/jsonscan"
)

// The hand-written reference clients build their requests' JSON by hand,
// as a lean client would, and decode of the answers only what they read;
// these are the pieces they share.

// WireReply is what a reference client decodes of a message from the
// server: whether it is a request or notification (Method set) rather than
// an answer, and of an answer, the result or the error.
type WireReply struct {
	Method string      `json:"method"`
	Result *WireResult `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// WireResult is what a reference client reads of a result: a tools/call's
// content and isError, an initialize's protocolVersion, a server/discover's
// supportedVersions.
type WireResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError           bool     `json:"isError"`
	ProtocolVersion   string   `json:"protocolVersion"`
	SupportedVersions []string `json:"supportedVersions"`
}

// FirstText is the text of the answer to a tools/call, or the error it
// stands for: the JSON-RPC error, a tool error, or ErrNoText for a result
// whose first content item is not text.
func (m *WireReply) FirstText() (string, error) {
	switch {
	case m.Error != nil:
		return "", fmt.Errorf("rpc error %d: %s", m.Error.Code, m.Error.Message)
	case m.Result == nil || len(m.Result.Content) == 0 || m.Result.Content[0].Type != "text":
		return "", ErrNoText
	case m.Result.IsError:
		return "", fmt.Errorf("tool error: %s", m.Result.Content[0].Text)
	}
	return m.Result.Content[0].Text, nil
}

// AppendToolCall appends the start of a tools/call request with the
// given id, tool and arguments (a JSON object), up to and including the
// arguments:
//
//	{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":TOOL,"arguments":ARGS
//
// The caller closes params and the request, after adding what its
// transport needs (_meta, a newline).
func AppendToolCall(b []byte, id int64, tool string, args []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":`...)
	b = jsonscan.AppendString(b, tool)
	b = append(b, `,"arguments":`...)
	return append(b, args...)
}
