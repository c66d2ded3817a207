package sqlstore

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"

	"github.com/hookd/hookd/internal/store"
)

// pageLimit is p's page size: store.DefaultPageSize when zero, at most
// store.MaxPageSize.
func pageLimit(p store.Page) int {
	if p.Limit <= 0 {
		return store.DefaultPageSize
	}
	return min(p.Limit, store.MaxPageSize)
}

// pageOf cuts rows, read with a limit of limit+1, to one page and returns
// the cursor of the next page ("" when rows was the last one).
func pageOf[T any](rows []T, limit int, key func(T) cursor) ([]T, string) {
	if len(rows) <= limit {
		return rows, ""
	}
	rows = rows[:limit]
	return rows, key(rows[limit-1]).String()
}

// cursor is the position after the last row of a page, in
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
