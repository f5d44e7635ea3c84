package jsonrpc

import (
	"math/bits"
	"sync"
	"unsafe"
)

// A request's params are encoded into a buffer of their own and live only
// until the transport actor has copied them into the request's frame
// (behind the id and method it adds); nothing reads them after that. The
// params of requests up to maxPooledParams are encoded into buffers that
// go round, taken by ParamsBuffer and given back by RecycleParams once
// copied; larger params get a buffer of their own, which the collector
// takes.
//
// The buffers come in powers of two from minPooledParams, so that a
// buffer is never much larger than what it holds: a burst of calls all
// sending at once takes a buffer each, and the pool keeps them until two
// collections have passed. docs/architecture.md, "Decoding and encoding
// by hand", says why the buffers are pooled.
const (
	minPooledParams = 128
	maxPooledParams = 4 << 10
	paramsClasses   = 6 // 128, 256, ... 4096
)

// paramsPools holds, per class, pointers to the first byte of free
// buffers: a pointer to an array's first element keeps the whole array
// alive, and putting a pointer in the pool allocates nothing.
var paramsPools [paramsClasses]sync.Pool

// paramsClass returns the index of the smallest class that holds size
// bytes, or -1 when none does.
func paramsClass(size int) int {
	if size <= minPooledParams {
		return 0
	}
	if size > maxPooledParams {
		return -1
	}
	return bits.Len(uint(size-1)) - bits.Len(minPooledParams-1)
}

// classOfBuffer returns the class whose size is exactly c, or -1.
func classOfBuffer(c int) int {
	if c < minPooledParams || c > maxPooledParams || c&(c-1) != 0 {
		return -1
	}
	return paramsClass(c)
}

// ParamsBuffer returns an empty buffer with room for at least size bytes
// of a request's params. Once filled, see Pooled and RecycleParams; a
// buffer that is never recycled costs only its allocation.
func ParamsBuffer(size int) []byte {
	k := paramsClass(size)
	if k < 0 {
		return make([]byte, 0, size)
	}
	n := minPooledParams << k
	if p, ok := paramsPools[k].Get().(*byte); ok {
		return unsafe.Slice(p, n)[:0]
	}
	return make([]byte, 0, n)
}

// Pooled reports whether params, about to be sent, are still in buf, a
// buffer ParamsBuffer gave of one of its classes, from its start: only
// then may they be recycled. Params that grew out of buf while they were
// encoded, or that were made again elsewhere (a span's trace context
// added to a copy), are not; buf is then left to the collector.
func Pooled(params, buf []byte) bool {
	return classOfBuffer(cap(buf)) >= 0 &&
		cap(params) == cap(buf) && unsafe.SliceData(params) == unsafe.SliceData(buf)
}

// RecycleParams gives back params that Pooled found in a pooled buffer.
// Nothing may read them afterwards: the next request's params are written
// over them. A buffer of any other capacity is left to the collector.
func RecycleParams(b []byte) {
	if k := classOfBuffer(cap(b)); k >= 0 {
		paramsPools[k].Put(unsafe.SliceData(b[:1]))
	}
}
