package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// Logger returns a logger writing to l's handler through Handler: every
// record's message and attributes masked. A nil l is returned as is.
func (m *Masker) Logger(l *slog.Logger) *slog.Logger {
	if l == nil || m == nil {
		return l
	}
	return slog.New(m.Handler(l.Handler()))
}

// Handler returns a handler that masks the server's credentials in each
// record's message and attributes (groups included) before h sees it:
// strings are masked, errors through Error, and any other value that
// would show a credential when printed is replaced by its masked text.
func (m *Masker) Handler(h slog.Handler) slog.Handler {
	if mh, ok := h.(*maskHandler); ok && mh.m == m {
		return h
	}
	return &maskHandler{h: h, m: m}
}

type maskHandler struct {
	h slog.Handler
	m *Masker
}

func (h *maskHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h *maskHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.m.Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.m.attr(a))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h *maskHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		masked[i] = h.m.attr(a)
	}
	return &maskHandler{h: h.h.WithAttrs(masked), m: h.m}
}

func (h *maskHandler) WithGroup(name string) slog.Handler {
	return &maskHandler{h: h.h.WithGroup(name), m: h.m}
}

// attr returns a with its value masked.
func (m *Masker) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s := m.Text(v.String()); s != v.String() {
			return slog.String(a.Key, s)
		}
		return slog.Attr{Key: a.Key, Value: v}
	case slog.KindGroup:
		group := v.Group()
		masked := make([]slog.Attr, len(group))
		for i, g := range group {
			masked[i] = m.attr(g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(masked...)}
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.Any(a.Key, m.Error(x))
		case []byte:
			if s := m.Text(string(x)); s != string(x) {
				return slog.String(a.Key, s)
			}
		default:
			if text := fmt.Sprintf("%+v", x); m.Text(text) != text {
				return slog.String(a.Key, m.Text(text))
			}
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
