package compat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Call is one planned request, in the conformance corpus plan.json format: Request holds the
// request message as protojson (lowerCamelCase names), Metadata optional gRPC request headers.
type Call struct {
	ID       string            `json:"id"`
	Method   string            `json:"method"`
	Request  json.RawMessage   `json:"request"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Plan is an ordered list of calls.
type Plan []Call

// decodeRequest builds the call's request message.
func (c *Call) decodeRequest() (proto.Message, error) {
	spec, ok := methods[c.Method]
	if !ok {
		return nil, fmt.Errorf("call %s: unknown method %q (known: api.Registry/<method> and %s)", c.ID, c.Method, ExperimentalListPackageCustomSchemas)
	}
	req := spec.request()
	raw := c.Request
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return req, nil
	}
	if err := protojson.Unmarshal(raw, req); err != nil {
		return nil, fmt.Errorf("call %s %s: request %s does not decode: %v", c.ID, c.Method, raw, err)
	}
	return req, nil
}

// Validate checks that every call has an id, a known method and a request that decodes, and that
// ids are unique.
func (p Plan) Validate() error {
	seen := make(map[string]bool, len(p))
	var errs []error
	for i := range p {
		c := &p[i]
		if c.ID == "" {
			errs = append(errs, fmt.Errorf("call #%d (%s): no id", i+1, c.Method))
		} else if seen[c.ID] {
			errs = append(errs, fmt.Errorf("call #%d: id %s used twice", i+1, c.ID))
		}
		seen[c.ID] = true
		if _, err := c.decodeRequest(); err != nil {
			errs = append(errs, err)
		}
		if len(errs) >= 10 {
			errs = append(errs, errors.New("(further problems not listed)"))
			break
		}
	}
	return errors.Join(errs...)
}

// ReadPlan reads a plan.json (a JSON array of calls) and validates it. name is used in errors.
func ReadPlan(r io.Reader, name string) (Plan, error) {
	var p Plan
	dec := json.NewDecoder(r)
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("plan %s is not a JSON array of calls ({\"id\", \"method\", \"request\"}): %w", name, describeJSONError(err))
	}
	if dec.More() {
		return nil, fmt.Errorf("plan %s: unexpected data after the JSON array", name)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("plan %s: %w", name, err)
	}
	return p, nil
}

// LoadPlan reads the plan file at path.
func LoadPlan(path string) (Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	defer f.Close()
	return ReadPlan(f, path)
}

// Write writes the plan as the corpus does: an indented JSON array, one call per object.
func (p Plan) Write(w io.Writer) error {
	if p == nil {
		p = Plan{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(p); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func describeJSONError(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("%v at byte %d", err, syn.Offset)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Errorf("%v at byte %d", err, typ.Offset)
	}
	return err
}
