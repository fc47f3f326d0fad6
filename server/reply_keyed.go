package server

// KeyedPairs starts n key-value pairs that Redis nests under RESP2 and maps
// under RESP3, as XREAD answers its streams (key, entries); each pair starts
// with KeyedPair. RESP2: an array of n two-element arrays; RESP3: %n. It is
// the reverse of Pairs, which nests under RESP3 only.
func (r Reply) KeyedPairs(n int) {
	if r.resp3 {
		r.header('%', n)
		return
	}
	r.conn.WriteArray(n)
}

// KeyedPair starts one pair of a KeyedPairs reply. RESP2: *2; RESP3:
// nothing.
func (r Reply) KeyedPair() {
	if !r.resp3 {
		r.conn.WriteArray(2)
	}
}
