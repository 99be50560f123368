package compat

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// ErrNotRecorded is returned by a recorded target for a call its recording does not hold.
var ErrNotRecorded = errors.New("call not in the recording")

// recordedTarget answers from a conformance corpus recording (grpc*/ directory: plan.json plus one
// answer per call id, as files or answers.json.gz), matching calls by method and request.
type recordedTarget struct {
	dir     string
	kind    Kind
	plan    Plan
	answers map[string]json.RawMessage // by callKey
}

// recordedAnswer is one answer as the corpus stores it.
type recordedAnswer struct {
	Code     string          `json:"code"`
	Message  string          `json:"message"`
	Response json.RawMessage `json:"response"`
}

// OpenRecording makes a Target of recorded answers. kind is the kind of server that answered
// (KindUnknown: told from the recorded answer to a GetPackage miss, when there is one).
func OpenRecording(dir string, kind Kind) (Target, error) {
	plan, err := LoadPlan(filepath.Join(dir, "plan.json"))
	if err != nil {
		return nil, err
	}
	byID := map[string]json.RawMessage{}
	gz := filepath.Join(dir, "answers.json.gz")
	if f, err := os.Open(gz); err == nil {
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", gz, err)
		}
		if err := json.NewDecoder(zr).Decode(&byID); err != nil {
			return nil, fmt.Errorf("%s: %w", gz, describeJSONError(err))
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	} else {
		for _, c := range plan {
			data, err := os.ReadFile(filepath.Join(dir, c.ID+".json"))
			if err != nil {
				return nil, fmt.Errorf("recording %s: answer of call %s: %w", dir, c.ID, err)
			}
			byID[c.ID] = data
		}
	}
	t := &recordedTarget{dir: dir, kind: kind, plan: plan, answers: make(map[string]json.RawMessage, len(plan))}
	for i := range plan {
		c := &plan[i]
		raw, ok := byID[c.ID]
		if !ok {
			return nil, fmt.Errorf("recording %s has no answer for call %s", dir, c.ID)
		}
		key, err := callKey(c)
		if err != nil {
			return nil, err
		}
		t.answers[key] = raw
	}
	if t.kind == KindUnknown {
		if a, err := t.Invoke(context.Background(), probeCall()); err == nil {
			t.kind = kindFromProbe(a)
		}
	}
	return t, nil
}

// callKey identifies a call by what is sent: method, request and metadata.
func callKey(c *Call) (string, error) {
	req, err := c.decodeRequest()
	if err != nil {
		return "", err
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	if err != nil {
		return "", err
	}
	key := c.Method + "\x00" + string(b)
	if len(c.Metadata) > 0 {
		md, _ := json.Marshal(c.Metadata) // map keys are sorted
		key += "\x00" + string(md)
	}
	return key, nil
}

func (t *recordedTarget) String() string { return t.dir }
func (t *recordedTarget) Kind() Kind     { return t.kind }
func (t *recordedTarget) Close() error   { return nil }

// Plan is the recorded plan.
func (t *recordedTarget) Plan() Plan { return t.plan }

func (t *recordedTarget) Invoke(ctx context.Context, c *Call) (*Answer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key, err := callKey(c)
	if err != nil {
		return nil, err
	}
	raw, ok := t.answers[key]
	if !ok {
		return nil, fmt.Errorf("%w %s", ErrNotRecorded, t.dir)
	}
	return decodeRecorded(c.Method, raw)
}

func decodeRecorded(method string, raw json.RawMessage) (*Answer, error) {
	var r recordedAnswer
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("recorded answer: %w", err)
	}
	code, ok := codeByName[r.Code]
	if !ok {
		return nil, fmt.Errorf("recorded answer: unknown code %q", r.Code)
	}
	spec := methods[method]
	a := &Answer{Code: code, Message: r.Message, stream: spec.stream}
	decode := func(b json.RawMessage) (proto.Message, error) {
		m := spec.response()
		if err := protojson.Unmarshal(b, m); err != nil {
			return nil, fmt.Errorf("recorded %s answer: %w", shortMethod(method), err)
		}
		return m, nil
	}
	if len(r.Response) == 0 || string(r.Response) == "null" {
		return a, nil
	}
	if !spec.stream {
		m, err := decode(r.Response)
		if err != nil {
			return nil, err
		}
		a.Messages = []proto.Message{m}
		return a, nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(r.Response, &parts); err != nil {
		return nil, fmt.Errorf("recorded %s answer is not an array: %w", shortMethod(method), err)
	}
	for _, p := range parts {
		m, err := decode(p)
		if err != nil {
			return nil, err
		}
		a.Messages = append(a.Messages, m)
	}
	return a, nil
}

var codeByName = func() map[string]codes.Code {
	m := map[string]codes.Code{}
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		m[c.String()] = c
	}
	return m
}()
