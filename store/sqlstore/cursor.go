package sqlstore

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"

	"github.com/hookd/hookd/store"
)

// cursor is the position after the last endpoint of a page, in
// (created_at, id) order.
type cursor struct {
	created int64
	id      string
}

// firstPage sorts before every endpoint.
var firstPage = cursor{created: math.MinInt64}

func (c cursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.created, 10) + "." + c.id))
}

func parseCursor(s string) (cursor, error) {
	if s == "" {
		return firstPage, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, store.ErrInvalidCursor
	}
	created, id, ok := strings.Cut(string(raw), ".")
	if !ok {
		return cursor{}, store.ErrInvalidCursor
	}
	n, err := strconv.ParseInt(created, 10, 64)
	if err != nil {
		return cursor{}, store.ErrInvalidCursor
	}
	return cursor{created: n, id: id}, nil
}
