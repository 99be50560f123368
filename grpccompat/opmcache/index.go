package opmcache

import "github.com/olmcat/olmcat/grpccompat/fbcbackend"

// The types below encode as opm's packageIndex does (pkg/cache/pkgs.go: cPkg, cChannel, cBundle),
// field for field and tag for tag: encoding/json writes struct fields in declaration order and
// map keys sorted, so the bytes are opm's.

type cPkg struct {
	Name           string              `json:"name"`
	Description    string              `json:"description"`
	Icon           *cIcon              `json:"icon"`
	DefaultChannel string              `json:"defaultChannel"`
	Channels       map[string]cChannel // opm's field has no tag
	Deprecation    *cDeprecation       `json:"deprecation,omitempty"`
}

// cIcon is opm's model.Icon; its Data is []byte, which encoding/json writes in standard base64,
// the form the backend keeps it in.
type cIcon struct {
	Data      string `json:"base64data"`
	MediaType string `json:"mediatype"`
}

type cDeprecation struct {
	Message string `json:"message"`
}

type cChannel struct {
	Name        string
	Head        string
	Bundles     map[string]cBundle
	Deprecation *cDeprecation `json:"deprecation,omitempty"`
}

type cBundle struct {
	Package  string   `json:"package"`
	Channel  string   `json:"channel"`
	Name     string   `json:"name"`
	Replaces string   `json:"replaces"`
	Skips    []string `json:"skips"` // null when the entry has no skips, as opm writes it
}

func deprecationOf(msg *string) *cDeprecation {
	if msg == nil {
		return nil
	}
	return &cDeprecation{Message: *msg}
}

// packageIndex is opm's packages.json content for the backend's packages.
func packageIndex(pkgs []fbcbackend.IndexPackage) map[string]cPkg {
	out := make(map[string]cPkg, len(pkgs))
	for _, p := range pkgs {
		cp := cPkg{Name: p.Name, Description: p.Description, DefaultChannel: p.DefaultChannel,
			Channels: make(map[string]cChannel, len(p.Channels)), Deprecation: deprecationOf(p.Deprecation)}
		if p.Icon != nil {
			cp.Icon = &cIcon{Data: p.Icon.Data, MediaType: p.Icon.MediaType}
		}
		for _, c := range p.Channels {
			cc := cChannel{Name: c.Name, Head: c.Head, Bundles: make(map[string]cBundle, len(c.Entries)), Deprecation: deprecationOf(c.Deprecation)}
			for _, e := range c.Entries {
				cc.Bundles[e.Name] = cBundle{Package: p.Name, Channel: c.Name, Name: e.Name, Replaces: e.Replaces, Skips: e.Skips}
			}
			cp.Channels[c.Name] = cc
		}
		out[p.Name] = cp
	}
	return out
}
