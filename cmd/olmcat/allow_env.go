package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/olmcat/olmcat/internal/indeximage"
)

// envAllowRegistry names the registries the bundle images of templates may be on beside public
// ones, for a whole pipeline: a comma-separated list of what --allow-registry takes (HOST,
// HOST:PORT, a CIDR, localhost). A script that names its private mirror once keeps `opm alpha`
// replaced by `olmcat` as its only change.
const envAllowRegistry = "OLMCAT_ALLOW_REGISTRY"

// envAllowedRegistries is the list in $OLMCAT_ALLOW_REGISTRY (checked at start by
// checkEnvAllowedRegistries).
func envAllowedRegistries() []string {
	var out []string
	for _, h := range strings.Split(os.Getenv(envAllowRegistry), ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// checkEnvAllowedRegistries refuses a $OLMCAT_ALLOW_REGISTRY entry --allow-registry would
// refuse, whatever the command: a typo must not silently leave a registry out.
func checkEnvAllowedRegistries() error {
	for _, h := range envAllowedRegistries() {
		if err := indeximage.ParseAllowedHost(h); err != nil {
			return fmt.Errorf("%s: %w (it is a comma-separated list of HOST, HOST:PORT, a CIDR or localhost)", envAllowRegistry, err)
		}
	}
	return nil
}
