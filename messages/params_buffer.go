package messages

import (
	"sync"
	"unsafe"
)

// A request's params are encoded into a buffer of their own and live only
// until the transport actor has copied them into the request's frame
// (behind the id and method it adds); nothing reads them after that. On
// the hot path that buffer was one allocation per call, the same size on
// every call of a tool: so the params of small requests are encoded into
// buffers that go round, taken by ParamsBuffer and given back by
// RecycleParams once copied. Two classes cover the requests a tool call
// makes in practice (an echo is about a hundred bytes, a 2026-07-28
// request with the era's _meta about three hundred); larger params get a
// buffer of their own, as before, which the collector takes.
const (
	smallParams = 512
	largeParams = 4 << 10
)

var (
	smallParamsPool = sync.Pool{New: func() any { return new([smallParams]byte) }}
	largeParamsPool = sync.Pool{New: func() any { return new([largeParams]byte) }}
)

// ParamsBuffer returns an empty buffer with room for at least size bytes
// of a request's params. Pass it, once filled, to RecycleParams when
// nothing reads it any more; a buffer that is never recycled costs only
// its allocation.
func ParamsBuffer(size int) []byte {
	switch {
	case size <= smallParams:
		return smallParamsPool.Get().(*[smallParams]byte)[:0]
	case size <= largeParams:
		return largeParamsPool.Get().(*[largeParams]byte)[:0]
	}
	return make([]byte, 0, size)
}

// Pooled reports whether params, about to be sent, are still in buf, a
// buffer ParamsBuffer took from its pools, from its start: only then may
// they be recycled. Params that grew out of buf while they were encoded,
// or that were made again elsewhere (a span's trace context added to a
// copy), are not; buf is then left to the collector.
func Pooled(params, buf []byte) bool {
	return (cap(buf) == smallParams || cap(buf) == largeParams) &&
		cap(params) == cap(buf) && unsafe.SliceData(params) == unsafe.SliceData(buf)
}

// RecycleParams gives back params that Pooled found in a pooled buffer.
// Nothing may read them afterwards: the next request's params are written
// over them. A buffer of any other capacity is left to the collector.
func RecycleParams(b []byte) {
	switch cap(b) {
	case smallParams:
		smallParamsPool.Put((*[smallParams]byte)(b[:smallParams]))
	case largeParams:
		largeParamsPool.Put((*[largeParams]byte)(b[:largeParams]))
	}
}
