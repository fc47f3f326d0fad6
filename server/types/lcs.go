package types

// LCS reads the two strings LCS compares, under both keys' locks, so that
// they are one moment's values. A missing key reads as the empty string,
// as in Redis; either key holding another type is ErrWrongType. The
// comparison itself runs in the server, after the locks are released.
func (d *DB) LCS(key1, key2 []byte) (a, b []byte, err error) {
	unlock := d.lock(key1, key2)
	defer unlock()
	now := d.e.now()
	var vals [2][]byte
	for i, k := range [][]byte{key1, key2} {
		ks := &keyState{}
		if err := d.load(ks, k, now); err != nil {
			return nil, nil, err
		}
		v, _, err := ks.stringValue()
		if err != nil {
			return nil, nil, err
		}
		vals[i] = v
	}
	return vals[0], vals[1], nil
}
