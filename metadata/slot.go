package metadata

// NumSlots is the number of Redis Cluster hash slots. Slot returns values in
// [0, NumSlots). On-disk, since metadata and expire keys hold a slot: append,
// never renumber; this value never changes.
const NumSlots = 16384

// Slot returns the Redis Cluster hash slot of user key key, exactly as Redis's
// CLUSTER KEYSLOT computes it: CRC16-XMODEM (polynomial 0x1021, initial value
// 0) mod 16384, of the key's hashtag if it has one and of the whole key
// otherwise. The hashtag is the bytes between the first '{' and the first '}'
// after it, when there is at least one byte between them. So
// "{user1000}.following" and "{user1000}.followers" share a slot, "foo{}{bar}"
// hashes the whole key and "foo{{bar}}zap" hashes "{bar".
func Slot(key []byte) uint16 {
	for s := 0; s < len(key); s++ {
		if key[s] != '{' {
			continue
		}
		for e := s + 1; e < len(key); e++ {
			if key[e] == '}' {
				if e > s+1 {
					key = key[s+1 : e]
				}
				break
			}
		}
		break
	}
	return crc16(key) & (NumSlots - 1)
}

// crc16 is CRC16-XMODEM: polynomial 0x1021, initial value 0, no reflection, no
// final xor. It is the CRC Redis Cluster uses (crc16("123456789") == 0x31c3).
func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc = crc<<8 ^ crc16Table[byte(crc>>8)^c]
	}
	return crc
}

var crc16Table = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()
