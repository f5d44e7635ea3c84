package actors

import (
	"context"
	"fmt"
	"iter"

	"github.com/mcpactor/mcpactor/internal/callerr"
)

// MaxPages bounds the pages one listing will follow: cursors are opaque
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination),
// so only a limit stops a server whose cursors never end.
const MaxPages = 1000

// page is one page of a list result (server/utilities/pagination): the
// cursor is opaque and the page size is the server's choice.
type page[T any] struct {
	items []T
	next  string
}

// pages yields every item of a paginated listing, then, if the listing was
// cut short or failed, the error. fetch gets the cursor ("" for the first page).
func pages[T any](server, method string, fetch func(ctx context.Context, cursor string) (page[T], error)) func(ctx context.Context) iter.Seq2[T, error] {
	return func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			var zero T
			seen := map[string]bool{}
			cursor := ""
			for n := 1; ; n++ {
				p, err := fetch(ctx, cursor)
				if err != nil {
					yield(zero, err)
					return
				}
				for _, item := range p.items {
					if !yield(item, nil) {
						return
					}
				}
				if p.next == "" {
					return
				}
				if seen[p.next] {
					yield(zero, callerr.NewPagination(&callerr.Error{Server: server, Method: method, Cursor: p.next, Pages: n, Problem: "the server repeated a cursor"}))
					return
				}
				if n >= MaxPages {
					yield(zero, callerr.NewPagination(&callerr.Error{Server: server, Method: method, Cursor: p.next, Pages: n, Problem: fmt.Sprintf("more than %d pages", MaxPages)}))
					return
				}
				seen[p.next] = true
				cursor = p.next
			}
		}
	}
}

// collect drains a listing into a slice; items read before an error are
// returned with it.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for item, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, item)
	}
	return out, nil
}
