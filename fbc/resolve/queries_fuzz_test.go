package resolve

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzReadQueries: any input is read into queries or refused with a *QueryError naming the line;
// never a panic. A query read back from its own JSON is the same query.
func FuzzReadQueries(f *testing.F) {
	for _, s := range []string{
		`{"package":"p"}`,
		`{"package":"p","channels":["a","b"],"version":">=1.0.0 <2.0.0-0","policy":"SelfCertified","installed":{"name":"p.v1","version":"1.0.0+2"}}`,
		"\n\n{\"package\":\"p\",\"tag\":\"install\",\"bundle\":\"x\"}\n{\"package\":\"q\"}",
		`{"package":"p","channel":"a"}`,
		`{"package":"p","installed":{"name":""}}`,
		`{"package":1}`,
		`[]`,
		`{"package":"p","policy":"Never"}`,
		`{"package":"p","installed":null,"channels":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		qs, err := ReadQueries(bytes.NewReader(data), "q.jsonl")
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) || qe.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for _, q := range qs {
			if q.Check() != nil {
				t.Fatalf("accepted a query that fails Check: %+v", q)
			}
			b, err := json.Marshal(q)
			if err != nil {
				t.Fatal(err)
			}
			again, err := ParseQuery(b)
			if err != nil {
				t.Fatalf("own JSON %s refused: %v", b, err)
			}
			b2, _ := json.Marshal(again)
			if !bytes.Equal(b, b2) {
				t.Fatalf("round trip: %s != %s", b, b2)
			}
		}
	})
}
