package transport

import "sync"

// pieces holds a frame too long for its reader's buffer while it arrives:
// copies of what was read, in pooled chunks of pieceSize bytes, put
// together once the frame ends, in one buffer of its exact size
// (assemble). Growing one buffer by doubling instead makes a 1 MiB frame
// cost about 4 MiB of garbage (every buffer from 64 KiB to 2 MiB), and a
// reader drops such a buffer after the frame anyway, so as not to pin it
// while idle: in a process with many servers, the collections that garbage
// causes slow every call in flight. The zero value is empty.
type pieces struct {
	chunks [][]byte
	n      int // bytes held
}

// pieceSize is the size of a chunk.
const pieceSize = 64 << 10

// pieceChunks lends the chunks, shared by every reader: a chunk goes back as
// soon as its frame is put together or dropped.
var pieceChunks = sync.Pool{New: func() any { return new([pieceSize]byte) }}

// add copies p in.
func (ps *pieces) add(p []byte) {
	ps.n += len(p)
	for len(p) > 0 {
		k := len(ps.chunks)
		if k == 0 || len(ps.chunks[k-1]) == pieceSize {
			ps.chunks = append(ps.chunks, pieceChunks.Get().(*[pieceSize]byte)[:0])
			k++
		}
		c := ps.chunks[k-1]
		m := copy(c[len(c):pieceSize], p)
		ps.chunks[k-1] = c[:len(c)+m]
		p = p[m:]
	}
}

// each calls f with every chunk's bytes, in order.
func (ps *pieces) each(f func([]byte)) {
	for _, c := range ps.chunks {
		f(c)
	}
}

// assemble returns a new buffer of exactly head, the bytes held and tail,
// and empties ps. Each chunk goes back to the pool once copied, so the
// frame is never held twice whole.
func (ps *pieces) assemble(head, tail []byte) []byte {
	out := make([]byte, 0, len(head)+ps.n+len(tail))
	out = append(out, head...)
	for i, c := range ps.chunks {
		out = append(out, c...)
		pieceChunks.Put((*[pieceSize]byte)(c[:pieceSize]))
		ps.chunks[i] = nil
	}
	ps.chunks, ps.n = ps.chunks[:0], 0
	return append(out, tail...)
}

// reset drops the bytes held, the chunks going back to the pool.
func (ps *pieces) reset() {
	for i, c := range ps.chunks {
		pieceChunks.Put((*[pieceSize]byte)(c[:pieceSize]))
		ps.chunks[i] = nil
	}
	ps.chunks, ps.n = ps.chunks[:0], 0
}
