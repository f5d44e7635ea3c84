// Package rawjson reads and writes JSON text (RFC 8259) by hand, in one
// pass and without reflection, with exactly encoding/json's results: the
// texts it accepts, the strings it decodes, the errors it reports and the
// bytes it writes. The decoders of messages and the JSON-RPC codec of
// internal/jsonrpc are built on it; fuzz tests hold it to encoding/json.
package rawjson
