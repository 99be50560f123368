package diff_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
)

// channelRemoved returns the one channel-removed finding of a package's channel.
func channelRemoved(t *testing.T, r *diff.Report, pkg, channel string) diff.Finding {
	t.Helper()
	var found []diff.Finding
	for _, f := range r.Findings {
		if f.Kind == diff.ChannelRemoved && f.Package == pkg && f.Channel == channel {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one channel-removed for %s/%s, got %d: %v", pkg, channel, len(found), briefs(r))
	}
	return found[0]
}

// From the community v4.12 subset to the v4.20 one, ecr-secret-operator dropped its v0.3 and v0.4
// channels; their heads are entries of the new alpha channel, where their subscribers can go.
func TestChannelRemovedNamesWhereSubscribersCanSwitch(t *testing.T) {
	dir := sharedPath(t, "conformance/fbc")
	r := diff.Compare(openPair(t, filepath.Join(dir, "community-v4.12-bundleobject-subset", "catalog"),
		filepath.Join(dir, "community-v4.20-csvmetadata-subset", "catalog")))
	const p = "ecr-secret-operator"
	for channel, want := range map[string]string{
		"v0.3": `channel "v0.3" removed with its 1 entry; its subscribers stop getting updates unless they switch channel: ` +
			`channel "alpha" holds its head ` + p + `.v0.3.2`,
		"v0.4": `channel "v0.4" removed with its 2 entries; its subscribers stop getting updates unless they switch channel: ` +
			`channel "alpha" holds its head ` + p + `.v0.4.1`,
	} {
		if f := channelRemoved(t, r, p, channel); f.Message != want || f.New != "" {
			t.Errorf("%s: message\n%s\nwant\n%s (new %q)", channel, f.Message, want, f.New)
		}
	}
}

// With v0.3 gone from the v4.12 subset, no channel holds its head v0.3.2 or offers it anything
// (v0.4's first entry replaces nothing): the message says only that its subscribers are cut off.
func TestChannelRemovedWithNowhereToGo(t *testing.T) {
	old := loadCatalog(t, subset412)
	cat := loadCatalog(t, subset412)
	cat.Channels = slices.DeleteFunc(cat.Channels, func(c fbc.Channel) bool {
		return c.Package == "ecr-secret-operator" && c.Name == "v0.3"
	})
	r := diff.Compare(side("old", old), side("new", cat))
	const want = `channel "v0.3" removed with its 1 entry; its subscribers stop getting updates`
	if f := channelRemoved(t, r, "ecr-secret-operator", "v0.3"); f.Message != want {
		t.Errorf("message %q, want %q", f.Message, want)
	}
}
