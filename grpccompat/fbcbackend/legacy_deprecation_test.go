package fbcbackend

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

const legacyDeprecationCatalog = `{"schema":"olm.package","name":"demo","defaultChannel":"stable"}
{"schema":"olm.channel","name":"alpha","package":"demo","entries":[{"name":"demo.v1.0.0"}],
 "properties":[{"type":"olm.deprecated.channel","value":{"message":"alpha is frozen","fallback":["stable"]}}]}
{"schema":"olm.channel","name":"beta","package":"demo","entries":[{"name":"demo.v1.0.0"}],
 "properties":[{"type":"olm.deprecated.channel","value":{"message":"old words"}}]}
{"schema":"olm.channel","name":"stable","package":"demo","entries":[{"name":"demo.v1.0.0"}]}
{"schema":"olm.bundle","name":"demo.v1.0.0","package":"demo","image":"quay.io/demo/bundle:v1.0.0",
 "properties":[{"type":"olm.package","value":{"packageName":"demo","version":"1.0.0"}}]}
{"schema":"olm.deprecations","package":"demo","entries":[{"reference":{"schema":"olm.channel","name":"beta"},"message":"beta: use stable"}]}
`

// The older channel-property form of a deprecation is served like an olm.deprecations entry; where
// both exist, the olm.deprecations entry wins.
func TestLegacyChannelDeprecationIsServed(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "catalog.json"), []byte(legacyDeprecationCatalog), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Open(context.Background(), Dir(root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pkg, err := b.GetPackage(context.Background(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"alpha":  "alpha is frozen. Switch to one of these channels instead: stable.",
		"beta":   "beta: use stable",
		"stable": "",
	}
	for _, ch := range pkg.GetChannels() {
		if got := ch.GetDeprecation().GetMessage(); got != want[ch.GetName()] {
			t.Errorf("channel %s deprecation %q, want %q", ch.GetName(), got, want[ch.GetName()])
		}
	}
}
