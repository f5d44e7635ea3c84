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
			err := walk(ctx, server, method, fetch, func(items []T) bool {
				for _, item := range items {
					if !yield(item, nil) {
						return false
					}
				}
				return true
			})
			if err != nil {
				var zero T
				yield(zero, err)
			}
		}
	}
}

// walk hands each page's items to visit, following the cursors until the
// last page, until visit returns false, or until the listing fails or is
// cut short, whose error it returns.
func walk[T any](ctx context.Context, server, method string, fetch func(ctx context.Context, cursor string) (page[T], error), visit func([]T) bool) error {
	seen := map[string]bool{}
	cursor := ""
	for n := 1; ; n++ {
		p, err := fetch(ctx, cursor)
		if err != nil {
			return err
		}
		if !visit(p.items) || p.next == "" {
			return nil
		}
		if seen[p.next] {
			return callerr.NewPagination(&callerr.Error{Server: server, Method: method, Cursor: p.next, Pages: n, Problem: "the server repeated a cursor"})
		}
		if n >= MaxPages {
			return callerr.NewPagination(&callerr.Error{Server: server, Method: method, Cursor: p.next, Pages: n, Problem: fmt.Sprintf("more than %d pages", MaxPages)})
		}
		seen[p.next] = true
		cursor = p.next
	}
}

// collectPages gathers a listing's items into one slice, as collect does:
// a listing of one page, the usual one, keeps that page's slice rather
// than copying it item by item (a tool is some 200 bytes, and a manager
// lists every server's tools at each connection).
func collectPages[T any](ctx context.Context, server, method string, fetch func(ctx context.Context, cursor string) (page[T], error)) ([]T, error) {
	var out []T
	err := walk(ctx, server, method, fetch, func(items []T) bool {
		if out == nil && len(items) > 0 {
			out = items // fetch made it for this listing alone
		} else {
			out = append(out, items...)
		}
		return true
	})
	return out, err
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
