package filter

import (
	"fmt"
	"strings"
)

// Flags are the selection flags of `olmcat filter`, as written on the command line.
type Flags struct {
	Packages        []string // NAME
	Channels        []string // PKG/CHANNEL
	MinVersions     []string // PKG=V or PKG/CHANNEL=V
	MaxVersions     []string // PKG=V or PKG/CHANNEL=V
	DefaultChannels []string // PKG=CHANNEL
	Bundles         []string // PKG/BUNDLE
	Full            bool
}

// FromFlags builds the configuration the flags describe: a package is selected by --package or
// by any flag naming it.
func FromFlags(f Flags) (*Config, error) {
	cfg := &Config{Full: f.Full}
	pkgs := map[string]*Package{}
	pkg := func(name, flag, arg string) (*Package, error) {
		if name == "" {
			return nil, fmt.Errorf("%s %q names no package", flag, arg)
		}
		if p := pkgs[name]; p != nil {
			return p, nil
		}
		cfg.Packages = append(cfg.Packages, Package{Name: name})
		p := &cfg.Packages[len(cfg.Packages)-1]
		pkgs[name] = p
		return p, nil
	}
	// Every pointer into cfg.Packages is taken after all packages are added: first collect names.
	order := []string{}
	seen := map[string]bool{}
	note := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			order = append(order, name)
		}
	}
	for _, n := range f.Packages {
		note(n)
	}
	for _, list := range [][]string{f.Channels, f.Bundles} {
		for _, c := range list {
			p, _, _ := strings.Cut(c, "/")
			note(p)
		}
	}
	for _, list := range [][]string{f.MinVersions, f.MaxVersions, f.DefaultChannels} {
		for _, a := range list {
			target, _, _ := strings.Cut(a, "=")
			p, _, _ := strings.Cut(target, "/")
			note(p)
		}
	}
	cfg.Packages = make([]Package, 0, len(order))
	for _, n := range order {
		if _, err := pkg(n, "--package", n); err != nil {
			return nil, err
		}
	}
	channel := func(p *Package, name string) *Channel {
		for i := range p.Channels {
			if p.Channels[i].Name == name {
				return &p.Channels[i]
			}
		}
		p.Channels = append(p.Channels, Channel{Name: name})
		return &p.Channels[len(p.Channels)-1]
	}
	for _, c := range f.Channels {
		p, ch, ok := strings.Cut(c, "/")
		if !ok || ch == "" || p == "" {
			return nil, fmt.Errorf("--channel %q: give PKG/CHANNEL", c)
		}
		channel(pkgs[p], ch)
	}
	for _, b := range f.Bundles {
		p, name, ok := strings.Cut(b, "/")
		if !ok || name == "" || p == "" {
			return nil, fmt.Errorf("--bundle %q: give PKG/BUNDLE", b)
		}
		pkgs[p].Bundles = append(pkgs[p].Bundles, name)
	}
	type bound struct{ min, max string }
	bounds := map[string]*bound{} // "pkg" or "pkg/channel"
	for _, list := range []struct {
		flag string
		args []string
		max  bool
	}{{"--min-version", f.MinVersions, false}, {"--max-version", f.MaxVersions, true}} {
		for _, a := range list.args {
			target, v, ok := strings.Cut(a, "=")
			if !ok || v == "" || target == "" {
				return nil, fmt.Errorf("%s %q: give PKG=VERSION or PKG/CHANNEL=VERSION", list.flag, a)
			}
			b := bounds[target]
			if b == nil {
				b = &bound{}
				bounds[target] = b
			}
			if list.max {
				b.max = v
			} else {
				b.min = v
			}
		}
	}
	for _, target := range sortedKeys(bounds) {
		b := bounds[target]
		p, ch, isChannel := strings.Cut(target, "/")
		if p == "" {
			return nil, fmt.Errorf("--min-version/--max-version %q: give PKG=VERSION or PKG/CHANNEL=VERSION", target)
		}
		r, err := MinMax(b.min, b.max, "--min-version/--max-version "+target)
		if err != nil {
			return nil, err
		}
		if isChannel {
			if ch == "" {
				return nil, fmt.Errorf("--min-version/--max-version %q: give PKG/CHANNEL=VERSION", target)
			}
			channel(pkgs[p], ch).Range = r
		} else {
			pkgs[p].Range = r
		}
	}
	for _, a := range f.DefaultChannels {
		p, ch, ok := strings.Cut(a, "=")
		if !ok || ch == "" || p == "" {
			return nil, fmt.Errorf("--default-channel %q: give PKG=CHANNEL", a)
		}
		pkgs[p].DefaultChannel = ch
	}
	return cfg, cfg.Check()
}
