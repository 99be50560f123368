// Package replay checks a api.Backend against answers recorded from the real opm servers
// (the conformance corpus format: plan.json plus one answer per call id). Each call goes through a
// real gRPC server and client, so the wire encoding is exercised too.
package replay

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Call is one planned request.
type Call struct {
	ID       string            `json:"id"`
	Method   string            `json:"method"`
	Request  json.RawMessage   `json:"request"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Answer is one recorded (or observed) result: the gRPC code name, the status message, and the
// response message (unary) or the array of streamed messages, as protojson.
type Answer struct {
	Code     string          `json:"code"`
	Message  string          `json:"message"`
	Response json.RawMessage `json:"response"`
}

// Nondeterministic lists, per call id, the csvNames opm may legitimately answer.
type Nondeterministic map[string][]string

// Recording is a plan with its answers.
type Recording struct {
	Dir     string
	Plan    []Call
	Answers map[string]Answer
	AnyOf   Nondeterministic
}

// Load reads a grpc*/ directory of the conformance corpus.
func Load(dir string) (*Recording, error) {
	r := &Recording{Dir: dir, Answers: map[string]Answer{}, AnyOf: Nondeterministic{}}
	if err := readJSON(filepath.Join(dir, "plan.json"), &r.Plan); err != nil {
		return nil, err
	}
	gz := filepath.Join(dir, "answers.json.gz")
	if f, err := os.Open(gz); err == nil {
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", gz, err)
		}
		if err := json.NewDecoder(zr).Decode(&r.Answers); err != nil {
			return nil, fmt.Errorf("%s: %w", gz, err)
		}
	} else {
		for _, c := range r.Plan {
			var a Answer
			if err := readJSON(filepath.Join(dir, c.ID+".json"), &a); err != nil {
				return nil, err
			}
			r.Answers[c.ID] = a
		}
	}
	var nd map[string]struct {
		Valid []string `json:"valid_csvNames"`
	}
	if err := readJSON(filepath.Join(dir, "nondeterministic.json"), &nd); err == nil {
		for id, n := range nd {
			r.AnyOf[id] = n.Valid
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	return r, nil
}

func readJSON(path string, into any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// canonical is a stable text for a JSON value: keys sorted, no HTML escaping.
func canonical(v any) string {
	b, _ := marshalNoEscape(v)
	return string(b)
}

// normalize parses a JSON answer body and, for streams, sorts the messages by canonical text (the
// corpus sorted them the same way, because opm's stream order is partly random).
func normalize(raw json.RawMessage, stream bool) (any, error) {
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	if stream {
		list, _ := v.([]any)
		if list == nil {
			list = []any{}
		}
		sort.Slice(list, func(i, j int) bool { return canonical(list[i]) < canonical(list[j]) })
		v = list
	}
	return v, nil
}
