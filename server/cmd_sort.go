package server

import "github.com/shaledb/shale/server/types"

// sortCommand is SORT and SORT_RO:
// key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA] [STORE destination]
// SORT_RO refuses STORE as a syntax error, as Redis does.
func sortCommand(c *Ctx, args [][]byte, readOnly bool) error {
	o := types.SortOptions{Count: -1}
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		switch {
		case is(args[j], "ASC"):
			o.Desc = false
		case is(args[j], "DESC"):
			o.Desc = true
		case is(args[j], "ALPHA"):
			o.Alpha = true
		case is(args[j], "LIMIT") && left >= 2:
			var err error
			if o.Offset, err = parseInt(args[j+1]); err != nil {
				return err
			}
			if o.Count, err = parseInt(args[j+2]); err != nil {
				return err
			}
			j += 2
		case !readOnly && is(args[j], "STORE") && left >= 1:
			o.StoreKey = args[j+1]
			j++
		case is(args[j], "BY") && left >= 1:
			o.By = args[j+1]
			j++
		case is(args[j], "GET") && left >= 1:
			o.Gets = append(o.Gets, args[j+1])
			j++
		default:
			return errSyntax
		}
	}
	items, stored, err := c.DB.Sort(args[1], o)
	if o.StoreKey != nil {
		// A new list: Redis wakes its waiters.
		return replyIntWaking(c, c.DB.Index(), o.StoreKey, stored, err)
	}
	return replyBulks(c, items, err)
}

func cmdSort(c *Ctx, args [][]byte) error   { return sortCommand(c, args, false) }
func cmdSortRO(c *Ctx, args [][]byte) error { return sortCommand(c, args, true) }

var sortCommands = []Command{
	cmd("sort", -2, Write|DenyOOM|UnnamedKeys, 1, 1, 1, cmdSort).keysBy(sortKeys).
		keySpecs(
			keyAt(1, KeyRO|KeyAccess),
			unknownKeys(KeyRO|KeyAccess, "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort"),
			unknownKeys(KeyOW|KeyUpdate, "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array")).
		acl(ACLSet|ACLSortedSet|ACLList|ACLDangerous).
		doc("Sort the elements in a list, set or sorted set", "1.0.0", "generic", "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).", "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC] [ALPHA] [STORE destination]"),
	cmd("sort_ro", -2, ReadOnly|UnnamedKeys, 1, 1, 1, cmdSortRO).keysBy(sortKeys).
		keySpecs(
			keyAt(1, KeyRO|KeyAccess),
			unknownKeys(KeyRO|KeyAccess, "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort")).
		acl(ACLSet|ACLSortedSet|ACLList|ACLDangerous).
		doc("Sort the elements in a list, set or sorted set. Read-only variant of SORT.", "7.0.0", "generic", "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).", "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC] [ALPHA]"),
}
