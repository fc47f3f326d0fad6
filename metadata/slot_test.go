package metadata

import "testing"

// TestSlot pins Slot to the values Redis 7's CLUSTER KEYSLOT returned for the
// same keys.
func TestSlot(t *testing.T) {
	tests := []struct {
		key  string
		want uint16
	}{
		{"foo", 12182},
		{"bar", 5061},
		{"{user1000}.following", 3443},
		{"{user1000}.followers", 3443},
		{"foo{}{bar}", 8363},    // empty first tag: hash the whole key
		{"foo{{bar}}zap", 4015}, // tag is "{bar"
		{"{bar", 4015},
		{"", 0},
		{"a", 15495},
		{"hello", 866},
		{"123456789", 12739},
		{"{}", 15257},
		{"{", 4092},
		{"}", 12090},
		{"{a}", 15495},
		{"x{a}y", 15495},
		{"{a}{b}", 15495},
		{"key:{12}:x", 8373},
		{"somekey", 11058},
		{"user:1000", 1649},
		{"foo{bar}{zap}", 5061},
		{"{{}}", 4092},
		{"}{a}", 15495},
		{"\xff\x00\x01", 8002},
		{"\x00", 0},
		{"{\x00}zz", 0},
		{"\xfe{\x80\x81}", 6705},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := Slot([]byte(tt.key)); got != tt.want {
				t.Fatalf("Slot(%q) = %d, want %d", tt.key, got, tt.want)
			}
		})
	}
}

// TestCRC16 checks the CRC against the XMODEM check value that Redis's
// crc16.c documents.
func TestCRC16(t *testing.T) {
	if got := crc16([]byte("123456789")); got != 0x31c3 {
		t.Fatalf("crc16(123456789) = %#x, want 0x31c3", got)
	}
}
