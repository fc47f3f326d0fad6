package types

import "errors"

// Domain errors. The server maps each to Redis's exact reply text.
var (
	ErrWrongType        = errors.New("wrong type")
	ErrNotInteger       = errors.New("value is not an integer")
	ErrNotFloat         = errors.New("value is not a float")
	ErrHashNotInteger   = errors.New("hash value is not an integer")
	ErrHashNotFloat     = errors.New("hash value is not a float")
	ErrOverflow         = errors.New("increment or decrement would overflow")
	ErrNaNOrInfinity    = errors.New("increment would produce NaN or Infinity")
	ErrNoSuchKey        = errors.New("no such key")
	ErrSameObject       = errors.New("source and destination objects are the same")
	ErrDBIndex          = errors.New("db index is out of range")
	ErrStringTooLong    = errors.New("string exceeds maximum allowed size")
	ErrOffsetOutOfRange = errors.New("offset is out of range")
	ErrSortScore        = errors.New("one or more scores can't be converted into double")
)
