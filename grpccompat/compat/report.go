package compat

import (
	"encoding/json"
	"time"
)

// Report is the outcome of a comparison.
type Report struct {
	Left  SideInfo `json:"left"`
	Right SideInfo `json:"right"`
	// CrossKind is true when one side serves an index.db and the other an FBC: only then are the
	// cross-kind normalizations applied.
	CrossKind bool `json:"crossKind"`
	// Normalizations lists the enabled normalizations that apply to these sides, with the number
	// of calls each one changed.
	Normalizations []AppliedNormalization `json:"normalizations"`
	Methods        []MethodStats          `json:"methods"`
	Total          MethodStats            `json:"total"`
	// Differences are the differing calls in plan order; at most Options.MaxDetails, Omitted
	// counts the rest.
	Differences []Difference `json:"differences"`
	Omitted     int          `json:"omittedDifferences,omitempty"`
	Errors      []CallError  `json:"errors"`
	// Incomplete says why the run stopped before the end of the plan ("" when it did not).
	Incomplete string        `json:"incomplete,omitempty"`
	Duration   time.Duration `json:"durationNanos"`
	// Plan is the plan that was run (for --save-plan); not part of the JSON report.
	Plan Plan `json:"-"`
}

// SideInfo names one side.
type SideInfo struct {
	Target string `json:"target"`
	Kind   string `json:"kind"`
}

// AppliedNormalization is an enabled normalization and how many calls it changed.
type AppliedNormalization struct {
	Normalization
	Calls int `json:"calls"`
}

// MethodStats counts the calls of one method by verdict (Equal includes Normalized).
type MethodStats struct {
	Method     string `json:"method"`
	Calls      int    `json:"calls"`
	Equal      int    `json:"equal"`
	Normalized int    `json:"normalized"`
	Different  int    `json:"different"`
	Errors     int    `json:"errors"`
}

// Difference is one call whose answers differ.
type Difference struct {
	ID      string          `json:"id"`
	Method  string          `json:"method"`
	Request json.RawMessage `json:"request"`
	// Left and Right are the answers as compared (after normalization), in the corpus answer
	// format (non-printable characters \u-escaped), cut when long with a note on a line of its
	// own: "... (N more characters)", or "... (N messages in all)" for a long stream.
	Left  string `json:"left"`
	Right string `json:"right"`
	// Diff is what differs, one line per differing field (see the package doc), at most 40 lines
	// per call and 8,000 bytes, each cut noted ("... and N more differences").
	Diff    string   `json:"diff"`
	Applied []string `json:"normalizationsApplied,omitempty"`
}

// CallError is a call one side could not answer.
type CallError struct {
	ID      string          `json:"id"`
	Method  string          `json:"method"`
	Request json.RawMessage `json:"request"`
	Side    string          `json:"side"` // "left" or "right"
	Error   string          `json:"error"`
}

// Equal reports whether every planned call was made and answered the same on both sides.
func (r *Report) Equal() bool {
	return r.Incomplete == "" && r.Total.Different == 0 && r.Total.Errors == 0
}

// Verdict is "equal", "different" or "incomplete".
func (r *Report) Verdict() string {
	switch {
	case r.Incomplete != "" || r.Total.Errors > 0:
		return "incomplete"
	case r.Total.Different > 0:
		return "different"
	}
	return "equal"
}

// MarshalJSON adds the verdict.
func (r *Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		Verdict string `json:"verdict"`
		*plain
	}{r.Verdict(), (*plain)(r)})
}

func (r *Report) count(method, verdict string) {
	var m *MethodStats
	for i := range r.Methods {
		if r.Methods[i].Method == method {
			m = &r.Methods[i]
		}
	}
	if m == nil {
		r.Methods = append(r.Methods, MethodStats{Method: method})
		m = &r.Methods[len(r.Methods)-1]
	}
	for _, s := range []*MethodStats{m, &r.Total} {
		s.Calls++
		switch verdict {
		case VerdictEqual:
			s.Equal++
		case VerdictNormalized:
			s.Equal++
			s.Normalized++
		case VerdictDifferent:
			s.Different++
		case VerdictError:
			s.Errors++
		}
	}
}
