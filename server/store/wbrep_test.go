package store

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/linxGnu/grocksdb"
	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
)

// TestBatchRepGolden fails if and only if the encoding changed.
func TestBatchRepGolden(t *testing.T) {
	var r batchRep
	r.put(0, []byte("k"), []byte("v"))
	r.put(3, []byte("key"), nil)
	r.delete(0, []byte("d"))
	r.delete(200, []byte("e"))
	r.merge(0, []byte("m"), []byte{1})
	r.merge(1, []byte("n"), []byte{2})
	r.deleteRange(0, []byte("a"), []byte("b"))
	r.deleteRange(2, []byte("c"), []byte("d"))
	r.logData([]byte("R1"))
	const want = "0000000000000000" + "08000000" + // sequence 0, count 8 (log data is not counted)
		"01016b0176" + // put default k=v
		"0503036b657900" + // put cf 3 key=""
		"000164" + // delete default d
		"04c8010165" + // delete cf 200 (varint c8 01) e
		"02016d0101" + // merge default m
		"0601016e0102" + // merge cf 1 n
		"0f01610162" + // delete range default [a, b)
		"0e0201630164" + // delete range cf 2 [c, d)
		"03025231" // log data "R1"
	if got := hex.EncodeToString(r.bytes()); got != want {
		t.Fatalf("encoding changed:\n got %s\nwant %s", got, want)
	}
	if empty := (&batchRep{}).bytes(); !bytes.Equal(empty, make([]byte, repHeader)) {
		t.Fatalf("empty batch = %x", empty)
	}
}

// repOp is one write, for comparing batchRep with RocksDB's own WriteBatch.
type repOp struct {
	kind     byte // 0 put, 1 delete, 2 merge, 3 delete range, 4 log data (key)
	cf       int
	key, val []byte
}

func applyBoth(r *batchRep, wb *grocksdb.WriteBatch, cfs []*grocksdb.ColumnFamilyHandle, op repOp) {
	h := cfs[op.cf]
	switch op.kind {
	case 0:
		r.put(h.ID(), op.key, op.val)
		wb.PutCF(h, op.key, op.val)
	case 1:
		r.delete(h.ID(), op.key)
		wb.DeleteCF(h, op.key)
	case 2:
		r.merge(h.ID(), op.key, op.val)
		wb.MergeCF(h, op.key, op.val)
	case 3:
		r.deleteRange(h.ID(), op.key, op.val)
		wb.DeleteRangeCF(h, op.key, op.val)
	case 4:
		r.logData(op.key)
		wb.PutLogData(op.key)
	}
}

// openRawCFs opens a RocksDB with Shale's column families, for their ids.
func openRawCFs(t testing.TB) []*grocksdb.ColumnFamilyHandle {
	cfg := conf.Default()
	cfg.Storage.Dir = t.TempDir()
	st, err := Open(cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.cfs[:]
}

// TestBatchRepMatchesRocksDB: the same writes give the same bytes as
// RocksDB's WriteBatch, and joining two reps gives the rep of both.
func TestBatchRepMatchesRocksDB(t *testing.T) {
	cfs := openRawCFs(t)
	long := bytes.Repeat([]byte("x"), 300) // two-byte varint lengths
	ops := []repOp{
		{0, 0, []byte("a"), []byte("1")},
		{0, 2, long, long},
		{1, 1, []byte("b"), nil},
		{2, 0, []byte("c"), []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{3, 1, []byte("d"), []byte("e")},
		{0, 5, nil, nil},
	}
	var r, first, second batchRep
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	for i, op := range ops {
		applyBoth(&r, wb, cfs, op)
		half := &first
		if i >= len(ops)/2 {
			half = &second
		}
		applyBoth(half, grocksdb.NewWriteBatch(), cfs, op)
	}
	if got, want := r.bytes(), wb.Data(); !bytes.Equal(got, want) {
		t.Fatalf("rep differs from RocksDB's:\n got %x\nwant %x", got, want)
	}
	first.appendRecords(second.records(), second.count)
	if !bytes.Equal(first.bytes(), r.bytes()) {
		t.Fatalf("joined reps differ:\n got %x\nwant %x", first.bytes(), r.bytes())
	}
	m := r.mark()
	r.put(0, []byte("undone"), nil)
	r.rollback(m)
	if !bytes.Equal(r.bytes(), wb.Data()) {
		t.Fatal("rollback left bytes behind")
	}
}

// FuzzBatchRep: any sequence of writes encodes as RocksDB encodes it, and
// RocksDB reads the rep back as the same writes.
func FuzzBatchRep(f *testing.F) {
	f.Add([]byte("\x00\x01ab\x02cd\x13\x02ef"))
	f.Add(bytes.Repeat([]byte{0x20, 0x81, 0x7f}, 40))
	cfs := openRawCFs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var r batchRep
		wb := grocksdb.NewWriteBatch()
		defer wb.Destroy()
		var ops []repOp
		for len(data) >= 3 {
			op := repOp{kind: data[0] % 5, cf: int(data[0]/5) % len(cfs)}
			kl, vl := int(data[1]), int(data[2])
			data = data[3:]
			kl = min(kl, len(data))
			op.key, data = data[:kl], data[kl:]
			if op.kind != 1 && op.kind != 4 {
				vl = min(vl, len(data))
				op.val, data = data[:vl], data[vl:]
			}
			ops = append(ops, op)
			applyBoth(&r, wb, cfs, op)
		}
		got := r.bytes()
		if !bytes.Equal(got, wb.Data()) {
			t.Fatalf("rep differs from RocksDB's:\n got %x\nwant %x", got, wb.Data())
		}
		counted := 0
		for _, op := range ops {
			if op.kind != 4 {
				counted++
			}
		}
		back := grocksdb.WriteBatchFrom(got)
		defer back.Destroy()
		if back.Count() != counted {
			t.Fatalf("RocksDB reads %d records, want %d", back.Count(), counted)
		}
		// walkRep reads back what was written, in order.
		i := 0
		err := walkRep(got, func(rec repRecord) error {
			op := ops[i]
			i++
			wantTag := [...]byte{tagCFValue, tagCFDeletion, tagCFMerge, tagCFRangeDeletion, tagLogData}[op.kind]
			wantCF := cfs[op.cf].ID()
			if wantCF == defaultColumnFamily || op.kind == 4 {
				wantTag = [...]byte{tagValue, tagDeletion, tagMerge, tagRangeDeletion, tagLogData}[op.kind]
				wantCF = defaultColumnFamily
			}
			if rec.tag != wantTag || rec.cf != wantCF || !bytes.Equal(rec.key.key(got), op.key) ||
				(op.kind != 1 && op.kind != 4 && !bytes.Equal(rec.val.key(got), op.val)) {
				t.Fatalf("record %d: %+v, want %+v", i-1, rec, op)
			}
			return nil
		})
		if err != nil || i != len(ops) {
			t.Fatalf("walkRep: %v after %d of %d records", err, i, len(ops))
		}
	})
}

// TestWalkRepRejects: walkRep fails on a cut-short batch and on a record
// type Shale never writes, and never reads past the batch.
func TestWalkRepRejects(t *testing.T) {
	var r batchRep
	r.put(3, []byte("key"), []byte("value"))
	full := r.bytes()
	for n := 0; n < len(full); n++ {
		if n == repHeader {
			continue // an empty batch is a valid one
		}
		if err := walkRep(full[:n], func(repRecord) error { return nil }); err == nil {
			t.Errorf("walkRep of the first %d bytes succeeded", n)
		}
	}
	bad := append(append([]byte(nil), full[:repHeader]...), 0x09, 1, 'k')
	if err := walkRep(bad, func(repRecord) error { return nil }); err == nil {
		t.Error("walkRep took record type 0x09")
	}
}
