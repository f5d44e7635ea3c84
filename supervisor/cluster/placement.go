package cluster

import "hash/fnv"

// place picks the member that should activate an identity nobody owns:
// rendezvous (highest random weight) hashing over the live members, so
// that every member picks the same one from the same view and an identity
// moves only when its chosen member leaves. The pick is a preference, not
// the authority: the ownership key in etcd decides, and a member that
// loses the race for it answers with the winner.
func place(id Identity, members []string) string {
	var best string
	var bestScore uint64
	for _, m := range members {
		h := fnv.New64a()
		h.Write([]byte(m))
		h.Write([]byte{0})
		h.Write([]byte(id.key()))
		if s := mix(h.Sum64()); best == "" || s > bestScore || (s == bestScore && m < best) {
			best, bestScore = m, s
		}
	}
	return best
}

// mix is a 64-bit finalizer (splitmix64's): FNV's high bits vary little
// with the last bytes, and rendezvous hashing compares whole values.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
