package conf

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Rewrite returns the TOML file src with c's values, for CONFIG REWRITE. It
// edits src line by line, so that comments, blank lines and the order of
// keys survive: a key src sets gets c's value in place (its trailing comment
// kept), a per-column-family override that c no longer sets is removed, and
// a key src does not set is appended to its table (the table is appended
// when src has none) only when c's value differs from the default. The
// result is checked: decoding it over Default() must give exactly c.
//
// Rewrite handles the TOML this project writes: [table] headers and
// key = value lines, arrays across lines included. A file with multi-line
// strings, inline tables, quoted keys or arrays of tables is refused with
// an error, and then nothing should be written.
func Rewrite(src []byte, c Config) ([]byte, error) {
	entries := configEntries(c)
	defaults := configEntries(Default())
	byKey := make(map[string]int, len(entries))
	for i, e := range entries {
		byKey[e.key()] = i
	}
	seen := make([]bool, len(entries))
	// A key whose value src already holds keeps its line as written
	// ("300s" stays "300s", not "5m").
	orig := Default()
	if _, err := toml.Decode(string(src), &orig); err != nil {
		return nil, fmt.Errorf("config file does not parse: %w", err)
	}
	origEntries := configEntries(orig)

	lines := strings.Split(string(src), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []string
	table := ""
	lastLine := map[string]int{} // table -> index in out after which new keys go
	tableOrder := []string{}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		t := strings.TrimSpace(line)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
			out = append(out, line)
			continue
		case strings.HasPrefix(t, "[["):
			return nil, fmt.Errorf("line %d: arrays of tables are not supported", i+1)
		case strings.HasPrefix(t, "["):
			end := strings.Index(t, "]")
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated table header", i+1)
			}
			name, err := normalizeKey(t[1:end])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			table = name
			out = append(out, line)
			if _, ok := lastLine[table]; !ok {
				tableOrder = append(tableOrder, table)
			}
			lastLine[table] = len(out) - 1
			continue
		}
		eq := strings.Index(line, "=")
		if eq < 0 {
			return nil, fmt.Errorf("line %d: want key = value", i+1)
		}
		name, err := normalizeKey(line[:eq])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		full := name
		if table != "" {
			full = table + "." + name
		}
		// The value may continue on the following lines (an array).
		rest := line[eq+1:]
		end, err := valueEnd(rest)
		for errors.Is(err, errOpenValue) && i+1 < len(lines) {
			i++
			rest += "\n" + lines[i]
			end, err = valueEnd(rest)
		}
		if err != nil {
			return nil, fmt.Errorf("key %s: %w", full, err)
		}
		comment := strings.TrimRight(rest[end:], " \t")
		idx, known := byKey[full]
		if !known {
			return nil, fmt.Errorf("key %s: not a config option", full)
		}
		seen[idx] = true
		e := entries[idx]
		if !e.set {
			continue // an override that is no longer set
		}
		if origEntries[idx] == e {
			out = append(out, strings.Split(line[:eq+1]+rest, "\n")...)
			lastLine[table] = len(out) - 1
			continue
		}
		keyText := strings.TrimRight(line[:eq], " \t")
		out = append(out, keyText+" = "+e.value+comment)
		lastLine[table] = len(out) - 1
	}

	// Keys the file does not set, when they differ from the default.
	inserts := map[int][]string{}
	var newTables []string
	newKeys := map[string][]string{}
	for i, e := range entries {
		if seen[i] || !e.set || (defaults[i].set && defaults[i].value == e.value) {
			continue
		}
		line := e.name + " = " + e.value
		if at, ok := lastLine[e.table]; ok {
			inserts[at] = append(inserts[at], line)
			continue
		}
		if _, ok := newKeys[e.table]; !ok {
			newTables = append(newTables, e.table)
		}
		newKeys[e.table] = append(newKeys[e.table], line)
	}
	var b strings.Builder
	for i, l := range out {
		b.WriteString(l)
		b.WriteByte('\n')
		for _, ins := range inserts[i] {
			b.WriteString(ins)
			b.WriteByte('\n')
		}
	}
	for _, tb := range newTables {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("[" + tb + "]\n")
		for _, l := range newKeys[tb] {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}

	// The file must now load as c.
	check := Default()
	md, err := toml.Decode(b.String(), &check)
	if err != nil {
		return nil, fmt.Errorf("rewritten file does not parse: %w", err)
	}
	if err := unknownKeys(md); err != nil {
		return nil, err
	}
	if !reflect.DeepEqual(check, c) {
		return nil, errors.New("rewritten file does not load as the current config")
	}
	return []byte(b.String()), nil
}

// entry is one option: its table ("rocksdb.subkey"), key, value as a TOML
// literal, and whether it is set (a nil override is not).
type entry struct {
	table, name, value string
	set                bool
}

func (e entry) key() string { return e.table + "." + e.name }

// configEntries lists every option of c, in declaration order.
func configEntries(c Config) []entry {
	var out []entry
	var walk func(v reflect.Value, table string)
	walk = func(v reflect.Value, table string) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name := f.Tag.Get("toml")
			fv := v.Field(i)
			if f.Type.Kind() == reflect.Struct && !reflect.PointerTo(f.Type).Implements(textUnmarshaler) {
				sub := name
				if table != "" {
					sub = table + "." + name
				}
				walk(fv, sub)
				continue
			}
			lit, set := tomlLiteral(fv)
			out = append(out, entry{table: table, name: name, value: lit, set: set})
		}
	}
	walk(reflect.ValueOf(c), "")
	return out
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// tomlLiteral formats one option value as TOML; a nil pointer or slice in
// an override is not set.
func tomlLiteral(v reflect.Value) (string, bool) {
	switch x := v.Interface().(type) {
	case ByteSize:
		if x == 0 {
			return "0", true
		}
		return tomlString(x.String()), true
	case Duration:
		s := x.Duration.String() // "5m0s", "1h0m0s", "100ms", "0s"
		if strings.HasSuffix(s, "m0s") {
			s = s[:len(s)-2]
		}
		if strings.HasSuffix(s, "h0m") {
			s = s[:len(s)-2]
		}
		return tomlString(s), true
	case string:
		return tomlString(x), true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") { // n: inf, nan
			s += ".0"
		}
		return s, true
	case []string:
		if x == nil {
			return "", false
		}
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = tomlString(s)
		}
		return "[" + strings.Join(q, ", ") + "]", true
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", false
		}
		return tomlLiteral(v.Elem())
	}
	panic(fmt.Sprintf("conf: no TOML form for %s", v.Type()))
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// normalizeKey turns a bare or dotted key ("rocksdb . subkey") into its
// canonical dotted form; quoted keys are refused.
func normalizeKey(s string) (string, error) {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if !bareKey.MatchString(parts[i]) {
			return "", fmt.Errorf("key %q: only bare keys are supported", strings.TrimSpace(s))
		}
	}
	return strings.Join(parts, "."), nil
}

// errOpenValue says the value continues on the next line.
var errOpenValue = errors.New("value continues")

// valueEnd returns the offset in s just past the TOML value that s starts
// with (after the '='), or errOpenValue when an array is still open.
func valueEnd(s string) (int, error) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i == len(s) {
		return 0, errors.New("missing value")
	}
	if strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], "'''") {
		return 0, errors.New("multi-line strings are not supported")
	}
	if s[i] == '{' {
		return 0, errors.New("inline tables are not supported")
	}
	depth := 0
	for i < len(s) {
		ch := s[i]
		switch {
		case ch == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return 0, errors.New("unterminated string")
			}
			i = j + 1
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return 0, errors.New("unterminated string")
			}
			i += j + 2
		case ch == '[':
			depth++
			i++
		case ch == ']':
			depth--
			i++
		case ch == '#':
			if depth > 0 { // a comment inside an array runs to the line's end
				nl := strings.IndexByte(s[i:], '\n')
				if nl < 0 {
					return 0, errOpenValue
				}
				i += nl
				continue
			}
			return trimEnd(s, i), nil
		case ch == '{':
			return 0, errors.New("inline tables are not supported")
		default:
			i++
		}
		if depth == 0 && (ch == '"' || ch == '\'' || ch == ']') {
			return i, nil
		}
	}
	if depth > 0 {
		return 0, errOpenValue
	}
	return trimEnd(s, len(s)), nil
}

// trimEnd backs i up over the spaces before it.
func trimEnd(s string, i int) int {
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return i
}
