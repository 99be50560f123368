package main

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/internal/indeximage"
)

// kubeServerKind is what serves the catalog in an image, as its configuration says.
type kubeServerKind int

const (
	kubeServerOlmcat   kubeServerKind = iota + 1 // olmcat serve: gRPC, catalogd's HTTP API, metrics
	kubeServerOPM                                // opm serve of a File-Based Catalog: gRPC only
	kubeServerOPMIndex                           // opm registry serve of an index.db: gRPC only
	// kubeServerNone is a binary-less File-Based Catalog image (no ENTRYPOINT or CMD, as
	// 'generate dockerfile -i scratch' builds it): catalogd reads it, OLM v0 serves it with its
	// own opm (grpcPodConfig.extractContent), nothing runs it as a Deployment.
	kubeServerNone
)

// kubeServer is how the Deployment runs an image's server.
type kubeServer struct {
	Kind kubeServerKind
	// Configs is the catalog directory (FBC images), Database the index.db (index.db images),
	// from the image's labels.
	Configs, Database string
	// CacheDir is the pre-built serve cache the image's command names ("" if none).
	CacheDir string
	// User is the image's USER when it is a non-root numeric UID (opm's images: 1001), else 0.
	User int64
}

// classifyKubeImage says what serves the catalog of an image from its configuration: its
// entrypoint (olmcat or opm) and opm's index labels. An image it cannot tell is an error naming
// what it found.
func classifyKubeImage(ref string, cfg v1.Config) (kubeServer, error) {
	program, _ := imageProgram(cfg)
	args := cfg.Cmd
	if len(cfg.Entrypoint) > 0 {
		args = append(slices.Clone(cfg.Entrypoint[1:]), cfg.Cmd...)
	} else if len(cfg.Cmd) > 0 {
		args = cfg.Cmd[1:]
	}
	configs, database := cfg.Labels[indeximage.ConfigsLabel], cfg.Labels[indeximage.DatabaseLabel]
	s := kubeServer{CacheDir: flagValue(args, "--cache-dir"), User: numericUser(cfg.User)}
	switch {
	case program == "olmcat": // olmcat serve reads either
		s.Kind, s.Configs = kubeServerOlmcat, configs
		if configs == "" {
			s.Database = database
		}
		return s, nil
	case program == "opm" && configs != "":
		s.Kind, s.Configs = kubeServerOPM, configs
		return s, nil
	case program == "opm" && database != "":
		s.Kind, s.Database = kubeServerOPMIndex, database
		return s, nil
	case program == "" && configs != "":
		s.Kind, s.Configs = kubeServerNone, configs
		return s, nil
	}
	return kubeServer{}, fmt.Errorf("%s: cannot tell what serves this image's catalog: its entrypoint is %s and its index labels are %s; "+
		"generate kube knows images served by olmcat (entrypoint /bin/olmcat), by opm serve (entrypoint opm, label %s) "+
		"and by opm registry serve (entrypoint opm, label %s)",
		ref, describeCommand(cfg), describeIndexLabels(cfg.Labels), indeximage.ConfigsLabel, indeximage.DatabaseLabel)
}

// imageProgram is the program an image runs: its entrypoint's, or its command's when it has no
// entrypoint; program is the file name ("opm"), binary the path as written ("/bin/opm").
// build tells opm's and olmcat's bases apart with it, as generate kube tells the images.
func imageProgram(cfg v1.Config) (program, binary string) {
	switch {
	case len(cfg.Entrypoint) > 0:
		binary = cfg.Entrypoint[0]
	case len(cfg.Cmd) > 0:
		binary = cfg.Cmd[0]
	default:
		return "", ""
	}
	return path.Base(binary), binary
}

// flagValue is the value of --name=V or --name V in args, "" if absent.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func describeCommand(cfg v1.Config) string {
	if len(cfg.Entrypoint) == 0 && len(cfg.Cmd) == 0 {
		return "empty (no ENTRYPOINT, no CMD)"
	}
	return fmt.Sprintf("%q with CMD %q", cfg.Entrypoint, cfg.Cmd)
}

func describeIndexLabels(labels map[string]string) string {
	var found []string
	for _, l := range []string{indeximage.ConfigsLabel, indeximage.DatabaseLabel} {
		if v, ok := labels[l]; ok {
			found = append(found, fmt.Sprintf("%s=%s", l, v))
		}
	}
	if len(found) == 0 {
		return "absent"
	}
	return strings.Join(found, ", ")
}

// numericUser is the UID of an image's USER ("1001", "1001:0") when it is numeric and not root,
// else 0.
func numericUser(user string) int64 {
	uid, _, _ := strings.Cut(user, ":")
	n, err := strconv.ParseInt(uid, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
