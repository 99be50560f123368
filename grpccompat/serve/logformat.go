package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// NewLogger is the servers' logger on w: "text" is opm's format (logrus's text formatter as opm
// serve writes it without a terminal: time="RFC 3339" level=info msg="..." key=value, the keys
// sorted), "json" one JSON object a line (log/slog's JSONHandler).
func NewLogger(w io.Writer, format string, level slog.Level) (*slog.Logger, error) {
	switch format {
	case "text", "":
		return slog.New(&logrusText{out: &lockedWriter{w: w}, level: level}), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})), nil
	}
	return nil, fmt.Errorf("unknown log format %q: use text (opm's) or json", format)
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// logrusText writes records as logrus's TextFormatter does with colours off.
type logrusText struct {
	out    *lockedWriter
	level  slog.Level
	attrs  []slog.Attr // from WithAttrs, keys already qualified by their groups
	prefix string      // from WithGroup: "g1.g2."
}

func (h *logrusText) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *logrusText) WithAttrs(as []slog.Attr) slog.Handler {
	h2 := *h
	h2.attrs = slices.Clip(h.attrs)
	for _, a := range as {
		h2.attrs = appendAttr(h2.attrs, h.prefix, a)
	}
	return &h2
}

func (h *logrusText) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.prefix += name + "."
	return &h2
}

func (h *logrusText) Handle(_ context.Context, r slog.Record) error {
	fields := slices.Clone(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		fields = appendAttr(fields, h.prefix, a)
		return true
	})
	slices.SortStableFunc(fields, func(a, b slog.Attr) int { return strings.Compare(a.Key, b.Key) })
	var b strings.Builder
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	writeField(&b, "time", t.Format(time.RFC3339))
	writeField(&b, "level", logrusLevel(r.Level))
	if r.Message != "" {
		writeField(&b, "msg", r.Message)
	}
	for _, f := range fields {
		writeField(&b, f.Key, valueString(f.Value))
	}
	b.WriteByte('\n')
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	_, err := io.WriteString(h.out.w, b.String())
	return err
}

// appendAttr flattens groups into dotted keys and drops empty attributes, as slog's handlers do.
func appendAttr(dst []slog.Attr, prefix string, a slog.Attr) []slog.Attr {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return dst
	}
	if a.Value.Kind() == slog.KindGroup {
		if a.Key != "" {
			prefix += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			dst = appendAttr(dst, prefix, g)
		}
		return dst
	}
	return append(dst, slog.Attr{Key: prefix + a.Key, Value: a.Value})
}

func valueString(v slog.Value) string {
	switch v.Kind() {
	case slog.KindString:
		return v.String()
	case slog.KindTime:
		return v.Time().Format(time.RFC3339)
	case slog.KindAny:
		return fmt.Sprint(v.Any())
	}
	return v.String()
}

// logrusLevel is logrus's name of a level.
func logrusLevel(l slog.Level) string {
	switch {
	case l < slog.LevelInfo:
		return "debug"
	case l < slog.LevelWarn:
		return "info"
	case l < slog.LevelError:
		return "warning"
	}
	return "error"
}

func writeField(b *strings.Builder, key, value string) {
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(key)
	b.WriteByte('=')
	if needsQuoting(value) {
		b.WriteString(strconv.Quote(value))
	} else {
		b.WriteString(value)
	}
}

// needsQuoting is logrus's rule: anything but letters, digits and -._/@^+ is quoted.
func needsQuoting(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '/' || c == '@' || c == '^' || c == '+') {
			return true
		}
	}
	return false
}
