package metadata

import (
	"encoding/binary"
	"fmt"
)

// Lengths of bookkeeping records.
const (
	bookKeyLen    = 8 // uid
	bookHeaderLen = 3 // type, db
)

// AppendBookKey appends the bookkeeping-CF key of uid to dst and returns the
// extended slice. Layout: | uid u64 |, big-endian, exactly 8 bytes. It shares
// its layout with the uid prefix of the subkey and score CFs, so one uid range
// covers a key's records in all three.
func AppendBookKey(dst []byte, uid uint64) []byte {
	return binary.BigEndian.AppendUint64(dst, uid)
}

// DecodeBookKey decodes a bookkeeping-CF key. Anything but exactly 8 bytes is
// rejected with an error wrapping ErrCorrupt.
func DecodeBookKey(b []byte) (uint64, error) {
	if len(b) != bookKeyLen {
		return 0, fmt.Errorf("book key: %d bytes, want %d: %w", len(b), bookKeyLen, ErrCorrupt)
	}
	return binary.BigEndian.Uint64(b), nil
}

// Book is the value of the bookkeeping CF under a uid: the owner of that uid's
// elements. The compaction filters follow it to the key's Meta to prove the
// elements dead or alive; RENAME and MOVE rewrite it. Big-endian layout:
//
//	| type u8 | db u16 | user key |
type Book struct {
	// Type is the owner's type: a composite type, or TypeString for a
	// fragmented string.
	Type Type
	// DB is the owner's database number.
	DB uint16
	// Key is the owner's user key; it may be empty. DecodeBook makes it a
	// non-nil subslice of its input: it aliases the input.
	Key []byte
}

// Append appends bk's encoding to dst and returns the extended slice. A Book
// whose Type is not composite still encodes, to bytes DecodeBook rejects.
func (bk Book) Append(dst []byte) []byte {
	dst = append(dst, byte(bk.Type))
	dst = binary.BigEndian.AppendUint16(dst, bk.DB)
	return append(dst, bk.Key...)
}

// DecodeBook decodes a bookkeeping-CF value. Input shorter than 3 bytes, or
// whose type is neither Composite nor TypeString (a fragmented string's),
// is rejected with an error wrapping ErrCorrupt.
// The returned Key aliases b.
func DecodeBook(b []byte) (Book, error) {
	if len(b) < bookHeaderLen {
		return Book{}, fmt.Errorf("book: %d bytes, want at least %d: %w", len(b), bookHeaderLen, ErrCorrupt)
	}
	bk := Book{
		Type: Type(b[0]),
		DB:   binary.BigEndian.Uint16(b[1:3]),
		Key:  b[bookHeaderLen:len(b):len(b)],
	}
	if !bk.Type.Composite() && bk.Type != TypeString {
		return Book{}, fmt.Errorf("book: type %s owns no elements: %w", bk.Type, ErrCorrupt)
	}
	return bk, nil
}
