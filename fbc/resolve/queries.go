package resolve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// MaxQueryLine is the longest query line ReadQueries accepts.
const MaxQueryLine = 1 << 20

// queryFields are the fields of a query line; answerFields are those of an answer (a line of a
// previous run or of a recording, e.g. ../shared/conformance/olmv1/*/resolve.jsonl), ignored so that
// such a file can be answered again.
var (
	queryFields  = []string{"package", "channels", "version", "policy", "installed"}
	answerFields = map[string]bool{"bundle": true, "bundleVersion": true, "error": true, "successors": true,
		"pickedBeforeValidation": true, "tag": true, "install": true, "packageHasDeprecation": true, "crdUpgradeSafety": true}
)

// QueryError is a query line that cannot be used.
type QueryError struct {
	Name string // the file, as given
	Line int
	Err  error
}

func (e *QueryError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err) }
func (e *QueryError) Unwrap() error { return e.Err }

// ReadQueries reads queries, one JSON object a line (blank lines skipped): package (required),
// channels, version, policy (CatalogProvided or SelfCertified; absent is CatalogProvided) and
// installed {name, version} (version may be left out: the caller looks it up). name is the file's
// name for errors.
func ReadQueries(r io.Reader, name string) ([]Query, error) {
	br := bufio.NewReader(r)
	var out []Query
	for line := 1; ; line++ {
		text, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &QueryError{Name: name, Line: line, Err: err}
		}
		if t := bytes.TrimSpace(text); len(t) > 0 {
			q, qerr := ParseQuery(t)
			if qerr != nil {
				return nil, &QueryError{Name: name, Line: line, Err: qerr}
			}
			out = append(out, q)
		}
		if err != nil {
			return out, nil
		}
	}
}

// readLine reads one line without its end, refusing lines over MaxQueryLine.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > MaxQueryLine {
			return nil, fmt.Errorf("line longer than %d bytes: a query is one JSON object a line", MaxQueryLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), err
	}
}

// ParseQuery reads one query object.
func ParseQuery(data []byte) (Query, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Query{}, fmt.Errorf("not a JSON object: %v", err)
	}
	var unknown []string
	for k := range raw {
		if !answerFields[k] && !contains(queryFields, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Query{}, fmt.Errorf("unknown field %q; a query has %s", unknown[0], strings.Join(queryFields, ", "))
	}
	var q Query
	field := func(k string, into any) error {
		v, ok := raw[k]
		if !ok || string(v) == "null" {
			return nil
		}
		if err := json.Unmarshal(v, into); err != nil {
			return fmt.Errorf("field %q: %v", k, err)
		}
		return nil
	}
	for _, f := range []struct {
		k    string
		into any
	}{{"package", &q.Package}, {"channels", &q.Channels}, {"version", &q.Version}, {"policy", &q.Policy}} {
		if err := field(f.k, f.into); err != nil {
			return Query{}, err
		}
	}
	if v, ok := raw["installed"]; ok && string(v) != "null" {
		var inst map[string]json.RawMessage
		if err := json.Unmarshal(v, &inst); err != nil {
			return Query{}, fmt.Errorf("field \"installed\": want an object {name, version}: %v", err)
		}
		q.Installed = &Installed{}
		for k, iv := range inst {
			var into *string
			switch k {
			case "name":
				into = &q.Installed.Name
			case "version":
				into = &q.Installed.Version
			default:
				return Query{}, fmt.Errorf("field \"installed\": unknown field %q; it has name and version", k)
			}
			if err := json.Unmarshal(iv, into); err != nil {
				return Query{}, fmt.Errorf("field \"installed.%s\": %v", k, err)
			}
		}
		if q.Installed.Name == "" {
			return Query{}, errors.New("field \"installed\": name is empty")
		}
	}
	if err := q.Check(); err != nil {
		return Query{}, err
	}
	return q, nil
}

// Check refuses what a ClusterExtension's API would refuse before any resolution: no package, an
// empty channel name, an unknown policy.
func (q Query) Check() error {
	if q.Package == "" {
		return errors.New("no package: a query names the package (\"package\")")
	}
	for _, c := range q.Channels {
		if c == "" {
			return errors.New("an empty channel name")
		}
	}
	switch q.Policy {
	case "", CatalogProvided, SelfCertified:
	default:
		return fmt.Errorf("policy %q: the upgrade constraint policy is %s or %s", q.Policy, CatalogProvided, SelfCertified)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
