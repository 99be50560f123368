package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValueEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{`{"a":"}\"]","b":[1,{"c":2}]} tail`, 28, true},
		{`"x\\"y`, 5, true},
		{`[1,2`, 0, false},
		{`"open`, 0, false},
		{`123, 4`, 3, true},
		{`true}`, 4, true},
		{``, 0, false},
	} {
		n, ok := ValueEnd([]byte(tc.in))
		if n != tc.want || ok != tc.ok {
			t.Errorf("ValueEnd(%q) = %d, %v; want %d, %v", tc.in, n, ok, tc.want, tc.ok)
		}
	}
}

// FuzzValueEnd: on valid JSON followed by anything, the value found is the one encoding/json reads.
func FuzzValueEnd(f *testing.F) {
	f.Add(`{"a":[1,"]"]}`, ` ,x`)
	f.Add(`"\"\\"`, `]`)
	f.Fuzz(func(t *testing.T, value, tail string) {
		if !json.Valid([]byte(value)) || strings.Trim(value, " \t\r\n") != value {
			return
		}
		n, ok := ValueEnd([]byte(value + " " + tail))
		if !ok || n != len(value) {
			t.Fatalf("ValueEnd(%q + %q) = %d, %v; want %d", value, tail, n, ok, len(value))
		}
	})
}
