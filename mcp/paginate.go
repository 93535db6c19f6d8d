package mcp

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// Cursors are opaque to clients: base64url of "list:offset", where offset
// is the index of the first item of the next page. The lists are fixed
// once serving starts, so an offset stays meaningful for the session.

func encodeCursor(list string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(list + ":" + strconv.Itoa(offset)))
}

// decodeCursor returns the offset a cursor for list names, if it is one
// this server could have issued for a list of n items.
func decodeCursor(cursor, list string, n int) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, false
	}
	name, num, ok := strings.Cut(string(raw), ":")
	if !ok || name != list {
		return 0, false
	}
	offset, err := strconv.Atoi(num)
	if err != nil || offset <= 0 || offset >= n || strconv.Itoa(offset) != num {
		return 0, false
	}
	return offset, true
}

// page reads the cursor of a list request and returns the slice bounds of
// the page to send and the cursor of the next one ("" on the last page).
// An empty cursor is the first page, as if it were absent.
func (ss *session) page(params json.RawMessage, list string, n int) (start, end int, next string, err error) {
	var p struct {
		Cursor json.RawMessage `json:"cursor"`
	}
	_ = json.Unmarshal(params, &p)
	if !isNull(p.Cursor) {
		cursor, ok := stringValue(p.Cursor)
		if !ok {
			return 0, 0, "", InvalidParams("cursor must be a string")
		}
		if cursor != "" {
			if start, ok = decodeCursor(cursor, list, n); !ok {
				return 0, 0, "", InvalidParams("cursor is not one this server issued for " + list + "/list; start again without a cursor")
			}
		}
	}
	end = min(start+ss.srv.opts.PageSize, n)
	if end < n {
		next = encodeCursor(list, end)
	}
	return start, end, next, nil
}
