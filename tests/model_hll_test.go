package tests

import (
	"strconv"

	"github.com/shaledb/shale/server/hll"
)

// The model's HyperLogLogs (model_test.go): strings whose bytes the model
// computes with server/hll, the package the server runs. The differential
// tests of hll_test.go pin that package's bytes and counts to real
// Redis's; the model checks what the server adds around it: the
// read-modify-write of the string under its key, the expiry it keeps, the
// type checks, PFCOUNT's write of the cached count, transactions, scripts
// and restarts.

// pickHLL picks a HyperLogLog command on key, for x in [0, 8): mostly
// PFADDs of a few elements of a few hundred, so that keys grow and meet.
func pickHLL(x int, key string, intn func(int) int, one func([]string) string) []string {
	switch {
	case x < 5:
		args := []string{"PFADD", key}
		for range intn(6) {
			args = append(args, "e"+strconv.Itoa(intn(400)))
		}
		return args
	case x < 7:
		args := []string{"PFCOUNT", key}
		for range intn(3) {
			args = append(args, one(modelNames))
		}
		return args
	}
	args := []string{"PFMERGE", key}
	for range intn(3) {
		args = append(args, one(modelNames))
	}
	return args
}

// applyHLL is PFADD, PFCOUNT or PFMERGE on the model.
func applyHLL(db map[string]*mval, a []string) any {
	// get returns the HyperLogLog under key as a copy, ok=false when
	// missing, or the reply of the type error.
	get := func(key string) (b []byte, ok bool, fail any) {
		v := db[key]
		switch {
		case v == nil:
			return nil, false, nil
		case v.typ != "string":
			return nil, false, modelWrongType
		case hll.Check([]byte(v.str)) != nil:
			return nil, false, errText(errNotHLL)
		}
		return []byte(v.str), true, nil
	}
	put := func(key string, b []byte) {
		if v := db[key]; v != nil {
			v.str = string(b) // the expiry stays
			return
		}
		db[key] = &mval{typ: "string", str: string(b)}
	}
	switch a[0] {
	case "PFADD":
		b, ok, fail := get(a[1])
		if fail != nil {
			return fail
		}
		updated := !ok
		if !ok {
			b = hll.New()
		}
		var err error
		for _, e := range a[2:] {
			var changed bool
			if b, changed, err = hll.Add(b, []byte(e), hll.DefaultSparseMaxBytes); err != nil {
				break
			}
			updated = updated || changed
		}
		if updated {
			if err == nil {
				hll.Invalidate(b)
			}
			put(a[1], b) // after a corrupt value's error too: Redis keeps what the adds did
		}
		switch {
		case err != nil:
			return errText(errCorruptHLL)
		case updated:
			return int64(1)
		}
		return int64(0)
	case "PFCOUNT":
		if len(a) == 2 {
			b, ok, fail := get(a[1])
			if fail != nil {
				return fail
			}
			if !ok {
				return int64(0)
			}
			card, wrote, err := hll.Count(b)
			if err != nil {
				return errText(errCorruptHLL)
			}
			if wrote {
				put(a[1], b)
			}
			return int64(card)
		}
		var regs hll.Registers
		for _, k := range a[1:] {
			b, ok, fail := get(k)
			if fail != nil {
				return fail
			}
			if ok && regs.Merge(b) != nil {
				return errText(errCorruptHLL)
			}
		}
		return int64(regs.Count())
	}
	// PFMERGE destkey sourcekey...: the destination is a source too.
	var regs hll.Registers
	dense := false
	for _, k := range a[1:] {
		b, ok, fail := get(k)
		if fail != nil {
			return fail
		}
		if !ok {
			continue
		}
		dense = dense || hll.IsDense(b)
		if regs.Merge(b) != nil {
			return errText(errCorruptHLL)
		}
	}
	b, ok, _ := get(a[1])
	if !ok {
		b = hll.New()
	}
	b, err := regs.Store(b, dense, hll.DefaultSparseMaxBytes)
	if err != nil {
		return errText(errCorruptHLL)
	}
	put(a[1], b)
	return modelOK
}
