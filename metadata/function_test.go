package metadata

import (
	"bytes"
	"testing"
)

// TestFunctionKeyGolden fails if and only if the key of a FUNCTION library
// changed on disk.
func TestFunctionKeyGolden(t *testing.T) {
	if got, want := AppendFunctionKey(nil, "mylib"), unhex(t, "7368616c653a66756e6374696f6e3a 6d796c6962"); !bytes.Equal(got, want) {
		t.Fatalf("encoding changed: got %x, want %x", got, want)
	}
	lower, upper := FunctionKeyRange()
	if string(lower) != "shale:function:" || string(upper) != "shale:function;" {
		t.Fatalf("range changed: [%q, %q)", lower, upper)
	}
}

func TestFunctionKeyRoundTrip(t *testing.T) {
	lower, upper := FunctionKeyRange()
	for _, lib := range []string{"a", "mylib", "Lib_2", "x_"} {
		key := AppendFunctionKey([]byte("junk"), lib)[4:]
		if got, ok := FunctionKeyLib(key); !ok || got != lib {
			t.Fatalf("FunctionKeyLib(%q) = %q, %v", key, got, ok)
		}
		if bytes.Compare(key, lower) < 0 || bytes.Compare(key, upper) >= 0 {
			t.Fatalf("%q is outside [%q, %q)", key, lower, upper)
		}
	}
	for _, key := range []string{"", "shale:function:", "shale:keys:\x00\x00", "shale:functio"} {
		if lib, ok := FunctionKeyLib([]byte(key)); ok {
			t.Fatalf("FunctionKeyLib(%q) = %q, true", key, lib)
		}
	}
}

// FuzzFunctionKeyLib: a key FunctionKeyLib accepts is the one
// AppendFunctionKey makes of the name it returns.
func FuzzFunctionKeyLib(f *testing.F) {
	f.Add(AppendFunctionKey(nil, "mylib"))
	f.Add([]byte("shale:keys:\x00\x00"))
	f.Fuzz(func(t *testing.T, key []byte) {
		if lib, ok := FunctionKeyLib(key); ok && !bytes.Equal(AppendFunctionKey(nil, lib), key) {
			t.Fatalf("FunctionKeyLib(%q) = %q", key, lib)
		}
	})
}
