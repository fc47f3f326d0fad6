package lualib

import (
	lua "github.com/yuin/gopher-lua"
)

// jsonTokenType is json_token_type_t; errors name the types by these
// names ("Expected value but found T_END at character 1").
type jsonTokenType int

const (
	tObjBegin jsonTokenType = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var jsonTokenNames = [...]string{
	"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END",
	"T_WHITESPACE", "T_ERROR", "T_UNKNOWN",
}

// jsonCh2Token is the ch2token table: the token a byte starts. A NUL
// ends the input, as the C parser reads a C string.
var jsonCh2Token = func() [256]jsonTokenType {
	var t [256]jsonTokenType
	for i := range t {
		t[i] = tError
	}
	t['{'], t['}'], t['['], t[']'], t[','], t[':'] = tObjBegin, tObjEnd, tArrBegin, tArrEnd, tComma, tColon
	t[0] = tEnd
	t[' '], t['\t'], t['\n'], t['\r'] = tWhitespace, tWhitespace, tWhitespace, tWhitespace
	for _, c := range []byte("fiInNt\"+-0123456789") {
		t[c] = tUnknown
	}
	return t
}()

// jsonEscape2Char is escape2char: the byte a backslash escape stands for,
// 'u' for a \uXXXX escape, 0 for an invalid one.
var jsonEscape2Char = [256]byte{
	'"': '"', '\\': '\\', '/': '/', 'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', 'u': 'u',
}

type jsonToken struct {
	typ   jsonTokenType
	index int // byte offset of the token, or of the error
	str   string
	num   float64
	b     bool
	err   string // the reason, for tError
}

type jsonDecoder struct {
	L     *lua.LState
	cfg   *jsonConfig
	data  string
	pos   int
	depth int
}

// cjson.decode(text)
func (cfg *jsonConfig) decode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argError(L, 1, "expected 1 argument")
	}
	d := jsonDecoder{L: L, cfg: cfg, data: checkLString(L, 1)}
	// JSON text starts with two ASCII characters at worst ('"' and one
	// more), so a NUL among them means UTF-16 or UTF-32 (RFC 4627).
	if len(d.data) >= 2 && (d.data[0] == 0 || d.data[1] == 0) {
		raise(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	var tok jsonToken
	d.next(&tok)
	// The string argument is the one stack slot json_decode holds.
	v := d.value(&tok, 1)
	d.next(&tok)
	if tok.typ != tEnd {
		d.fail("the end", &tok)
	}
	L.Push(v)
	return 1
}

func (d *jsonDecoder) at(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0
}

// fail is json_throw_parse_error.
func (d *jsonDecoder) fail(expected string, tok *jsonToken) {
	found := jsonTokenNames[tok.typ]
	if tok.typ == tError {
		found = tok.err
	}
	raise(d.L, "Expected %s but found %s at character %d", expected, found, tok.index+1)
}

func (d *jsonDecoder) setError(tok *jsonToken, reason string) {
	tok.typ = tError
	tok.index = d.pos
	tok.err = reason
}

// next is json_next_token.
func (d *jsonDecoder) next(tok *jsonToken) {
	var ch byte
	for {
		ch = d.at(d.pos)
		tok.typ = jsonCh2Token[ch]
		if tok.typ != tWhitespace {
			break
		}
		d.pos++
	}
	tok.index = d.pos
	switch {
	case tok.typ == tError:
		d.setError(tok, "invalid token")
		return
	case tok.typ == tEnd:
		return
	case tok.typ != tUnknown:
		d.pos++
		return
	}
	rest := d.data[d.pos:]
	switch {
	case ch == '"':
		d.nextString(tok)
	case ch == '-' || isDigit(ch):
		if d.cfg.decodeInvalid == 0 && d.invalidNumber() {
			d.setError(tok, "invalid number")
			return
		}
		d.nextNumber(tok)
	case len(rest) >= 4 && rest[:4] == "true":
		tok.typ, tok.b = tBoolean, true
		d.pos += 4
	case len(rest) >= 5 && rest[:5] == "false":
		tok.typ, tok.b = tBoolean, false
		d.pos += 5
	case len(rest) >= 4 && rest[:4] == "null":
		tok.typ = tNull
		d.pos += 4
	case d.cfg.decodeInvalid != 0 && d.invalidNumber():
		// Only numbers known to be invalid JSON (Inf, NaN, '+') come
		// here, so that other bad tokens say "invalid token".
		d.nextNumber(tok)
	default:
		d.setError(tok, "invalid token")
	}
}

// invalidNumber is json_is_invalid_number: a leading '+', hexadecimal, a
// leading zero, Inf or NaN. The C compares a signed char with '9', so
// bytes from 0x80 up count as "an ordinary number" there.
func (d *jsonDecoder) invalidNumber() bool {
	p := d.pos
	c := d.at(p)
	if c == '+' {
		return true
	}
	if c == '-' {
		p++
		c = d.at(p)
	}
	if c == '0' {
		c2 := d.at(p + 1)
		return c2|0x20 == 'x' || isDigit(c2)
	}
	if int8(c) <= '9' {
		return false
	}
	rest := d.data[min(p, len(d.data)):]
	return hasPrefixFold(rest, "inf") || hasPrefixFold(rest, "nan")
}

// nextNumber is json_next_number_token: whatever strtod reads.
func (d *jsonDecoder) nextNumber(tok *jsonToken) {
	v, n := strtod(d.data[d.pos:])
	if n == 0 {
		d.setError(tok, "invalid number")
		return
	}
	tok.typ, tok.num = tNumber, v
	d.pos += n
}

// nextString is json_next_string_token; errors point at the byte where
// the string went wrong.
func (d *jsonDecoder) nextString(tok *jsonToken) {
	d.pos++ // the opening quote
	var s []byte
	for {
		ch := d.at(d.pos)
		if ch == '"' {
			break
		}
		if ch == 0 {
			d.setError(tok, "unexpected end of string")
			return
		}
		if ch == '\\' {
			esc := jsonEscape2Char[d.at(d.pos+1)]
			if esc == 'u' {
				var ok bool
				if s, ok = d.appendUnicodeEscape(s); ok {
					continue
				}
				d.setError(tok, "invalid unicode escape code")
				return
			}
			if esc == 0 {
				d.setError(tok, "invalid escape code")
				return
			}
			d.pos++ // the backslash
			ch = esc
		}
		s = append(s, ch)
		d.pos++
	}
	d.pos++ // the closing quote
	tok.typ, tok.str = tString, string(s)
}

// hex4 is decode_hex4: the value of four hex digits at i, or -1.
func (d *jsonDecoder) hex4(i int) int {
	v := 0
	for j := range 4 {
		c := d.at(i + j)
		var n int
		switch {
		case isDigit(c):
			n = int(c - '0')
		case 'a' <= c|0x20 && c|0x20 <= 'f':
			n = int(c|0x20-'a') + 10
		default:
			return -1
		}
		v = v<<4 | n
	}
	return v
}

// appendUnicodeEscape is json_append_unicode_escape: \uXXXX, or a UTF-16
// surrogate pair of two of them, as UTF-8.
func (d *jsonDecoder) appendUnicodeEscape(s []byte) ([]byte, bool) {
	escLen := 6
	cp := d.hex4(d.pos + 2)
	if cp < 0 {
		return s, false
	}
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 { // a low surrogate first
			return s, false
		}
		if d.at(d.pos+escLen) != '\\' || d.at(d.pos+escLen+1) != 'u' {
			return s, false
		}
		low := d.hex4(d.pos + 2 + escLen)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return s, false
		}
		cp = ((cp&0x3FF)<<10 | low&0x3FF) + 0x10000
		escLen = 12
	}
	switch {
	case cp <= 0x7F:
		s = append(s, byte(cp))
	case cp <= 0x7FF:
		s = append(s, byte(cp>>6|0xC0), byte(cp&0x3F|0x80))
	case cp <= 0xFFFF:
		s = append(s, byte(cp>>12|0xE0), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	default:
		s = append(s, byte(cp>>18|0xF0), byte(cp>>12&0x3F|0x80), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	}
	d.pos += escLen
	return s, true
}

// descend is json_decode_descend: the nesting limit, and the C stack
// limit for a context that needs this many more slots.
func (d *jsonDecoder) descend(slots, need int) {
	d.depth++
	if d.depth > d.cfg.decodeMaxDepth || slots+need > luaiMaxCStack {
		raise(d.L, "Found too many nested data structures (%d) at character %d", d.depth, d.pos)
	}
}

// value is json_process_value; slots is the C decoder's stack use before
// it pushes this value.
func (d *jsonDecoder) value(tok *jsonToken, slots int) lua.LValue {
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tObjBegin:
		return d.object(slots)
	case tArrBegin:
		return d.array(slots)
	case tNull:
		return d.cfg.null
	}
	d.fail("value", tok)
	return lua.LNil
}

// object is json_parse_object_context: it holds the table and a key.
func (d *jsonDecoder) object(slots int) lua.LValue {
	d.descend(slots, 3)
	t := d.L.CreateTable(0, 0)
	var tok jsonToken
	d.next(&tok)
	if tok.typ == tObjEnd {
		d.depth--
		return t
	}
	for {
		if tok.typ != tString {
			d.fail("object key string", &tok)
		}
		key := tok.str
		d.next(&tok)
		if tok.typ != tColon {
			d.fail("colon", &tok)
		}
		d.next(&tok)
		t.RawSetString(key, d.value(&tok, slots+2))
		d.next(&tok)
		if tok.typ == tObjEnd {
			d.depth--
			return t
		}
		if tok.typ != tComma {
			d.fail("comma or object end", &tok)
		}
		d.next(&tok)
	}
}

// array is json_parse_array_context: it holds the table.
func (d *jsonDecoder) array(slots int) lua.LValue {
	d.descend(slots, 2)
	t := d.L.CreateTable(0, 0)
	var tok jsonToken
	d.next(&tok)
	if tok.typ == tArrEnd {
		d.depth--
		return t
	}
	for i := 1; ; i++ {
		t.RawSetInt(i, d.value(&tok, slots+1))
		d.next(&tok)
		if tok.typ == tArrEnd {
			d.depth--
			return t
		}
		if tok.typ != tComma {
			d.fail("comma or array end", &tok)
		}
		d.next(&tok)
	}
}
