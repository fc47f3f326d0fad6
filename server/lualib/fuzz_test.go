package lualib

import (
	"errors"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// callLib calls lib.fn(args...) in a fresh state. A Lua error is a normal
// outcome; a Go panic inside the library is not: gopher-lua's PCall turns
// it into an ApiErrorPanic, which this reports as a test failure.
func callLib(t *testing.T, lib, fn string, args ...lua.LValue) {
	t.Helper()
	L := lua.NewState(lua.Options{RegistrySize: 1024 * 20, RegistryMaxSize: 1024 * 80})
	defer L.Close()
	Open(L)
	f := L.GetGlobal(lib).(*lua.LTable).RawGetString(fn)
	err := L.CallByParam(lua.P{Fn: f, NRet: lua.MultRet, Protect: true}, args...)
	var apiErr *lua.ApiError
	if errors.As(err, &apiErr) && apiErr.Type == lua.ApiErrorPanic {
		t.Fatalf("%s.%s panicked: %v", lib, fn, err)
	}
}

func FuzzCJSONDecode(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2,{"b":null}],"c":"d\u00e9\ud83d\ude00"}`, `[1e400,-0x1p4,NaN,+Infinity]`,
		`"\u12`, `[[[[`, "\"\\", "[1]\x00x", "0x", "-nan(ab)", `{"a":}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		callLib(t, "cjson", "decode", lua.LString(s))
	})
}

func FuzzCMsgpackUnpack(f *testing.F) {
	for _, s := range []string{
		"\x93\x01\xa1x\x81\xa1a\xc3", "\xdd\xff\xff\xff\xff", "\xdb\x00\x00\x00\x05ab",
		"\x81\xc0\x01", "\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "\xc1", "\x91\x91\x91\x91",
	} {
		f.Add(s, int64(0), int64(0))
	}
	f.Fuzz(func(t *testing.T, s string, limit, offset int64) {
		callLib(t, "cmsgpack", "unpack", lua.LString(s))
		callLib(t, "cmsgpack", "unpack_limit", lua.LString(s), lua.LNumber(limit), lua.LNumber(offset))
	})
}

func FuzzStructUnpack(f *testing.F) {
	f.Add(">bBhHlLiIT", "abcdefghijklmnopqrstuvwxyz0123456789", int64(1))
	f.Add("!8bdc0s", "\x03abc\x00", int64(2))
	f.Add("i16<I32c2000000000", "xyz", int64(-1))
	f.Fuzz(func(t *testing.T, format, data string, pos int64) {
		callLib(t, "struct", "unpack", lua.LString(format), lua.LString(data), lua.LNumber(pos))
		callLib(t, "struct", "size", lua.LString(format))
	})
}
