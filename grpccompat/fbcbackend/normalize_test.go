package fbcbackend

import (
	"bytes"
	"encoding/json"
	"testing"
)

// normalizeSlowly is normalizeJSON without its shortcut.
func normalizeSlowly(raw []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return encodeNoEscape(v)
}

var normalizeCases = []struct {
	in     string
	normal bool
}{
	{`{"packageName":"etcd","version":"0.9.4"}`, true},
	{`{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}`, true},
	{`{"a":[1,-2,true,false,null,{"b":"<&>"}],"c":{}}`, true},
	{`[]`, true},
	{`"ümlaut ✓"`, true},
	{`123456789012345`, true},
	{`{"version":"0.9.4","packageName":"etcd"}`, false}, // keys out of order
	{"{\n  \"schema\": \"olm.bundle\",\n  \"name\": \"a\",\n  \"properties\": [{\"type\": \"t\", \"value\": {\"z\": 1, \"a\": [{\"y\": \"l\\nb\", \"x\": null}]}}]\n}", false},
	{`{"b":1,"a":2,"b":3}`, false}, // repeated key, found once sorted
	{`{"b":{"d":1,"c":2},"a":[{"f":true,"e":false}]}`, false},
	{`{"a":1,"a":2}`, false}, // repeated key
	{`{"a": 1}`, false},      // white space: compacted
	{"{\n  \"group\": \"a b\",\n  \"kind\": \"K\"\n}", false},
	{" [ 1 , { } , \"x y\" ] \n", false},
	{`{"a":"\u0041"}`, false}, // escape the encoder does not write
	{`{"a":"line\nbreak"}`, true},
	{`{"a":"\"q\" \\ \b\f\r\t \u0001\u001f\u007f"}`, false}, // \u007f: DEL is written raw
	{`{"a":"\"q\" \\ \b\f\r\t \u0001\u001f \u2028\u2029"}`, true},
	{`{"a":"\u001F"}`, false}, // upper-case hex
	{`{"a":"\u000a"}`, false}, // written \n
	{`{"a":"\u0026\/"}`, false},
	{`{"k\n":1}`, false}, // escapes in keys take the slow path
	{"{\n \"a\": \"x\\\" y\"\n}", false},
	{"\"\u2028\"", false},
	{"\"\xff\"", false}, // invalid UTF-8
	{`1.0`, false},
	{`1e3`, false},
	{`-0`, false},
	{`01`, false},
	{`1234567890123456`, false}, // 16 digits: past float64's exact integers for some values
	{`{"a":1`, false},
	{`truex`, false},
	{``, false},
	{` {}`, false},
}

func TestNormalizeJSONShortcut(t *testing.T) {
	for _, c := range normalizeCases {
		if got := isNormalJSON([]byte(c.in)); got != c.normal {
			t.Errorf("isNormalJSON(%q) = %v, want %v", c.in, got, c.normal)
		}
		slow, slowErr := normalizeSlowly([]byte(c.in))
		fast, fastErr := normalizeJSON([]byte(c.in))
		if (slowErr == nil) != (fastErr == nil) || !bytes.Equal(slow, fast) {
			t.Errorf("normalizeJSON(%q) = %q, %v; decoding and re-encoding gives %q, %v", c.in, fast, fastErr, slow, slowErr)
		}
		if c.normal && !bytes.Equal(slow, []byte(c.in)) {
			t.Errorf("case %q is marked normal but re-encodes to %q", c.in, slow)
		}
	}
}

func TestNormalizeJSONDeepNestingTakesTheSlowPath(t *testing.T) {
	deep := bytes.Repeat([]byte("["), 200)
	deep = append(deep, bytes.Repeat([]byte("]"), 200)...)
	if isNormalJSON(deep) {
		t.Fatal("200 levels of nesting were taken as normal; the check must stay shallow")
	}
	if got, err := normalizeJSON(deep); err != nil || !bytes.Equal(got, deep) {
		t.Fatalf("normalizeJSON of deep nesting: %q, %v", got, err)
	}
}
