package messages

import (
	"bytes"
	"encoding/json"
)

// Values of CreateMessageParams.IncludeContext (client/sampling, 2025-11-25).
const (
	// IncludeContextNone is the default.
	IncludeContextNone = "none"
	// IncludeContextThisServer is soft-deprecated (2025-11-25).
	IncludeContextThisServer = "thisServer"
	// IncludeContextAllServers is soft-deprecated (2025-11-25).
	IncludeContextAllServers = "allServers"
)

// Standard values of CreateMessageResult.StopReason (client/sampling,
// 2025-11-25); providers may send others.
const (
	// StopReasonEndTurn: the assistant's turn ended naturally.
	StopReasonEndTurn = "endTurn"
	// StopReasonStopSequence: a stop sequence was met.
	StopReasonStopSequence = "stopSequence"
	// StopReasonMaxTokens: the token limit was reached.
	StopReasonMaxTokens = "maxTokens"
	// StopReasonToolUse: the model wants to call tools (2025-11-25).
	StopReasonToolUse = "toolUse"
)

// CreateMessageParams are the params of sampling/createMessage
// (client/sampling, 2025-11-25).
type CreateMessageParams struct {
	Meta             Meta              `json:"_meta,omitempty"`
	Messages         []SamplingMessage `json:"messages"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	MaxTokens        int               `json:"maxTokens"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	// Metadata is provider-specific.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Tools and ToolChoice need ClientCapabilities.Sampling.Tools (2025-11-25).
	Tools      []Tool          `json:"tools,omitempty"`
	ToolChoice json.RawMessage `json:"toolChoice,omitempty"`
}

// MarshalJSON encodes a nil Messages as [].
func (p CreateMessageParams) MarshalJSON() ([]byte, error) {
	type plain CreateMessageParams
	if p.Messages == nil {
		p.Messages = []SamplingMessage{}
	}
	return json.Marshal(plain(p))
}

// ModelPreferences are advisory hints for choosing a model (client/sampling, 2025-11-25).
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint is a model name substring to prefer (client/sampling, 2025-11-25).
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// SamplingMessage is one message of a sampling conversation
// (client/sampling, 2025-11-25). Since 2025-11-25 content may be one block
// or an array of blocks: Content holds a single block, Contents an array
// (when Contents is non-nil it is what gets encoded). Blocks returns either
// uniformly.
type SamplingMessage struct {
	Role     Role
	Content  Content
	Contents []Content
	Meta     Meta
}

// Blocks returns the message's content blocks.
func (m SamplingMessage) Blocks() []Content { return samplingBlocks(m.Content, m.Contents) }

type samplingMessageWire struct {
	Role    Role            `json:"role"`
	Content json.RawMessage `json:"content"`
	Meta    Meta            `json:"_meta,omitempty"`
}

// MarshalJSON encodes content as an object, or as an array when Contents is set.
func (m SamplingMessage) MarshalJSON() ([]byte, error) {
	content, err := marshalSamplingContent(m.Content, m.Contents)
	if err != nil {
		return nil, err
	}
	return json.Marshal(samplingMessageWire{m.Role, content, m.Meta})
}

// UnmarshalJSON accepts content as one block or an array of blocks.
func (m *SamplingMessage) UnmarshalJSON(data []byte) error {
	var w samplingMessageWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*m = SamplingMessage{Role: w.Role, Meta: w.Meta}
	return unmarshalSamplingContent(w.Content, &m.Content, &m.Contents)
}

// CreateMessageResult is the result of sampling/createMessage
// (client/sampling, 2025-11-25). Content and Contents work as in
// SamplingMessage.
type CreateMessageResult struct {
	Meta       Meta
	Role       Role
	Content    Content
	Contents   []Content
	Model      string
	StopReason string
}

// Blocks returns the result's content blocks.
func (r CreateMessageResult) Blocks() []Content { return samplingBlocks(r.Content, r.Contents) }

type createMessageResultWire struct {
	Meta       Meta            `json:"_meta,omitempty"`
	Role       Role            `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
}

// MarshalJSON encodes content as an object, or as an array when Contents is set.
func (r CreateMessageResult) MarshalJSON() ([]byte, error) {
	content, err := marshalSamplingContent(r.Content, r.Contents)
	if err != nil {
		return nil, err
	}
	return json.Marshal(createMessageResultWire{r.Meta, r.Role, content, r.Model, r.StopReason})
}

// UnmarshalJSON accepts content as one block or an array of blocks.
func (r *CreateMessageResult) UnmarshalJSON(data []byte) error {
	var w createMessageResultWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = CreateMessageResult{Meta: w.Meta, Role: w.Role, Model: w.Model, StopReason: w.StopReason}
	return unmarshalSamplingContent(w.Content, &r.Content, &r.Contents)
}

func samplingBlocks(one Content, many []Content) []Content {
	if many != nil {
		return many
	}
	return []Content{one}
}

func marshalSamplingContent(one Content, many []Content) (json.RawMessage, error) {
	if many != nil {
		return json.Marshal(many)
	}
	return json.Marshal(one)
}

func unmarshalSamplingContent(raw json.RawMessage, one *Content, many *[]Content) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		*many = []Content{}
		return json.Unmarshal(raw, many)
	}
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, one)
}
