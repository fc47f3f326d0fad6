package metadata

import "testing"

func TestType(t *testing.T) {
	tests := []struct {
		typ       Type
		name      string
		valid     bool
		composite bool
	}{
		{0, "unknown(0)", false, false},
		{TypeString, "string", true, false},
		{TypeHash, "hash", true, true},
		{TypeList, "list", true, true},
		{TypeSet, "set", true, true},
		{TypeZSet, "zset", true, true},
		{TypeStream, "stream", true, true},
		{7, "unknown(7)", false, false},
		{255, "unknown(255)", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.typ.String(); got != tt.name {
				t.Errorf("String() = %q, want %q", got, tt.name)
			}
			if got := tt.typ.Valid(); got != tt.valid {
				t.Errorf("Valid() = %v, want %v", got, tt.valid)
			}
			if got := tt.typ.Composite(); got != tt.composite {
				t.Errorf("Composite() = %v, want %v", got, tt.composite)
			}
		})
	}
}

// TestTypeGolden pins the on-disk type bytes: append, never renumber.
func TestTypeGolden(t *testing.T) {
	want := map[Type]byte{TypeString: 1, TypeHash: 2, TypeList: 3, TypeSet: 4, TypeZSet: 5, TypeStream: 6}
	for typ, b := range want {
		if byte(typ) != b {
			t.Errorf("%s = %d, want %d: on-disk type numbers changed", typ, byte(typ), b)
		}
	}
}
