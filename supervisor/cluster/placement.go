package cluster

import (
	"crypto/sha256"
	"encoding/binary"
)

// place picks the member that should activate an identity nobody owns:
// rendezvous (highest random weight) hashing over the live members, so
// that every member picks the same one from the same view and an identity
// moves only when its chosen member leaves. The pick is a preference, not
// the authority: the ownership key in etcd decides, and a member that
// loses the race for it answers with the winner.
//
// Each member's weight for an identity is a SHA-256 of the two. An
// earlier FNV-1a of the same bytes, even with a 64-bit finalizer, was not
// independent across members whose names differ in one character
// ("member-1", "member-2", ...): FNV-1a leaves the difference of such
// names in a state that every later byte transforms alike, so the order
// of the members' weights repeated from one identity to the next, and
// the demo's six servers landed five on one member of three.
func place(id Identity, members []string) string {
	var best string
	var bestScore uint64
	key := id.key()
	for _, m := range members {
		if s := weight(m, key); best == "" || s > bestScore || (s == bestScore && m < best) {
			best, bestScore = m, s
		}
	}
	return best
}

// weight is member's rendezvous weight for the identity key.
func weight(member, key string) uint64 {
	h := sha256.New()
	h.Write([]byte(member))
	h.Write([]byte{0})
	h.Write([]byte(key))
	var sum [sha256.Size]byte
	return binary.BigEndian.Uint64(h.Sum(sum[:0]))
}
