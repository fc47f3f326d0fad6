package lualib

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// benchCall measures lib.fn(arg) on one state, as a pooled interpreter
// runs it.
func benchCall(b *testing.B, lib, fn string, arg func(L *lua.LState) lua.LValue) {
	L := lua.NewState()
	defer L.Close()
	Open(L)
	f := L.GetGlobal(lib).(*lua.LTable).RawGetString(fn)
	v := arg(L)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := L.CallByParam(lua.P{Fn: f, NRet: 1, Protect: true}, v); err != nil {
			b.Fatal(err)
		}
		L.Pop(1)
	}
}

// benchValue is a job-queue-like record: the shape BullMQ and Sidekiq
// scripts encode and decode.
func benchValue(L *lua.LState) lua.LValue {
	if err := L.DoString(`return {id = "job:12345", attempts = 3, delay = 1500.5, tags = {"a", "b", "c"}, data = {user = 42, ok = true}}`); err != nil {
		panic(err)
	}
	return L.Get(-1)
}

func BenchmarkCJSONEncode(b *testing.B) {
	benchCall(b, "cjson", "encode", benchValue)
}

func BenchmarkCJSONDecode(b *testing.B) {
	benchCall(b, "cjson", "decode", func(*lua.LState) lua.LValue {
		return lua.LString(`{"id":"job:12345","attempts":3,"delay":1500.5,"tags":["a","b","c"],"data":{"user":42,"ok":true}}`)
	})
}

func BenchmarkCMsgpackPack(b *testing.B) {
	benchCall(b, "cmsgpack", "pack", benchValue)
}

func BenchmarkCMsgpackUnpack(b *testing.B) {
	benchCall(b, "cmsgpack", "unpack", func(L *lua.LState) lua.LValue {
		e := msgpackEncoder{L: L}
		e.value(benchValue(L), 0)
		return lua.LString(e.buf)
	})
}
