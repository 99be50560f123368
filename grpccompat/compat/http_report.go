package compat

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Verdict is "equal" or "different".
func (r *HTTPReport) Verdict() string {
	if r.Equal() {
		return "equal"
	}
	return "different"
}

// Write writes the report as text (also for markdown) or JSON.
func (r *HTTPReport) Write(w io.Writer, format string) error {
	if format == FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Verdict string `json:"verdict"`
			*HTTPReport
		}{r.Verdict(), r})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "catalogd HTTP API: %s vs %s\n", r.Left, r.Right)
	fmt.Fprintf(&b, "/api/v1/all: %d blobs vs %d", r.All.LeftBlobs, r.All.RightBlobs)
	if r.All.LeftStatus != r.All.RightStatus {
		fmt.Fprintf(&b, ", status %d vs %d", r.All.LeftStatus, r.All.RightStatus)
	}
	if r.All.Equal() {
		b.WriteString(": equal\n")
	} else {
		fmt.Fprintf(&b, ": %d only left, %d only right, %d changed\n", len(r.All.OnlyLeft), len(r.All.OnlyRight), len(r.All.Changed))
		writeKeys(&b, "  only left: ", r.All.OnlyLeft)
		writeKeys(&b, "  only right:", r.All.OnlyRight)
		writeKeys(&b, "  changed:   ", r.All.Changed)
	}
	fmt.Fprintf(&b, "/api/v1/metas: %d queries: %d equal, %d different, %d failed\n", r.Queries, r.EqualCount, r.DiffCount, len(r.Failed))
	for _, d := range r.Different {
		fmt.Fprintf(&b, "  ?%s: status %d vs %d, %d blobs vs %d\n", d.Query, d.LeftStatus, d.RightStatus, d.LeftBlobs, d.RightBlobs)
		writeKeys(&b, "    only left: ", d.OnlyLeft)
		writeKeys(&b, "    only right:", d.OnlyRight)
		writeKeys(&b, "    changed:   ", d.Changed)
	}
	for _, f := range r.Failed {
		fmt.Fprintf(&b, "  ?%s failed: %s\n", f.Query, f.Error)
	}
	fmt.Fprintf(&b, "verdict: %s\n", r.Verdict())
	// Within TextWidth columns: a long line goes on under its own indentation and four more.
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
		out.WriteString(fold(line, TextWidth, lead+"    "))
	}
	_, err := io.WriteString(w, out.String())
	return err
}

func writeKeys(b *strings.Builder, label string, keys []string) {
	const show = 10
	if len(keys) == 0 {
		return
	}
	fmt.Fprintf(b, "%s %s", label, strings.Join(keys[:min(show, len(keys))], "; "))
	if len(keys) > show {
		fmt.Fprintf(b, "; and %d more", len(keys)-show)
	}
	b.WriteString("\n")
}
