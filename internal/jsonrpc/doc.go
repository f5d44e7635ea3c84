// Package jsonrpc is the JSON-RPC 2.0 codec (https://www.jsonrpc.org/specification)
// the transports and the client engine share, written by hand for the hot
// path: the envelope (Message, Kind) and its one-pass decoder
// (DecodeMessage, DecodeBatch), encoders that append a frame to a buffer
// (AppendRequest, AppendNotification, AppendResult, AppendError, and
// AppendCallToolParams for the params of tools/call), WithMeta for the
// _meta every 2026-07-28 request carries, the pooled buffers of request
// params (ParamsBuffer, Pooled, RecycleParams), and FrameHeadScanner,
// which follows a frame too large or too malformed to decode far enough
// to fail the request it answers.
//
// What a user names (ids, the error object, payload types, errors) is in
// messages; this package only encodes and decodes it.
package jsonrpc
