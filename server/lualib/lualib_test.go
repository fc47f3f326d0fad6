package lualib

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// prelude gives every golden script the same helpers in gopher-lua and
// in real Redis, so that a script's result is one string compared byte for
// byte. It avoids tostring on numbers, which gopher-lua prints
// differently from Lua 5.1, and the order of table iteration.
const prelude = `
local function n(x)
  if x ~= x then return 'nan' elseif x == 1/0 then return 'inf' elseif x == -1/0 then return '-inf' end
  return string.format('%.17g', x)
end
local function hex(s)
  return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end))
end
local function dump(v)
  local t = type(v)
  if t == 'number' then return n(v)
  elseif t == 'string' then return '"' .. v .. '"'
  elseif v == cjson.null then return 'null'
  elseif t == 'table' then
    local parts = {}
    for k, x in pairs(v) do parts[#parts + 1] = dump(k) .. '=' .. dump(x) end
    table.sort(parts)
    return '{' .. table.concat(parts, ',') .. '}'
  end
  return t .. ':' .. tostring(v)
end
local function show(...)
  local out = {}
  for i = 1, select('#', ...) do out[#out + 1] = dump((select(i, ...))) end
  return table.concat(out, ' ')
end
local function try(f, ...)
  local r = {pcall(f, ...)}
  if not r[1] then return 'error: ' .. tostring(r[2]) end
  return show(unpack(r, 2, table.maxn(r)))
end
`

// wrap makes a golden's body into the script both interpreters run.
func wrap(body string) string {
	return prelude + "return (function()\n" + body + "\nend)()"
}

// run executes script in a fresh gopher-lua state with the libraries
// loaded and returns its string result.
func run(t testing.TB, script string) string {
	t.Helper()
	// Redis's limits on results (8000 stack slots) must fit the registry.
	L := lua.NewState(lua.Options{RegistrySize: 1024 * 20, RegistryMaxSize: 1024 * 80})
	defer L.Close()
	Open(L)
	// Redis names the chunk "@user_script", so errors read "user_script:1:".
	fn, err := L.Load(strings.NewReader(script), "user_script")
	if err != nil {
		return "lua error: " + err.Error()
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		return "lua error: " + err.Error()
	}
	v := L.Get(-1)
	if s, ok := v.(lua.LString); ok {
		return string(s)
	}
	return "non-string result: " + v.Type().String()
}

func TestGoldens(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			if got := run(t, wrap(g.script)); got != g.want {
				t.Errorf("script:\n%s\ngot:  %q\nwant: %q", g.script, got, g.want)
			}
		})
	}
}

func TestGoldenNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, g := range goldens {
		if seen[g.name] || strings.ContainsAny(g.name, " /") {
			t.Errorf("golden name %q repeated or not a valid subtest name", g.name)
		}
		seen[g.name] = true
	}
}
