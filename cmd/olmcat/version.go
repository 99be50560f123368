package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func init() { register(newVersionCmd) }

// version may be set at build time (-ldflags "-X main.version=v1.2.3"); otherwise the module version
// from the build info is used: the tag for `go install ...@v1.2.3`, "(devel)" for a local build.
var version = ""

// versionInfo is what olmcat version reports.
type versionInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

func buildVersion() versionInfo {
	v := versionInfo{Version: version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if v.Version == "" {
			v.Version = "unknown"
		}
		return v
	}
	if v.Version == "" {
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	return v
}

// String is one line: version, revision (+dirty), time.
func (v versionInfo) String() string {
	parts := []string{"olmcat " + v.Version}
	if v.Revision != "" {
		rev := v.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if v.Modified {
			rev += "-dirty"
		}
		parts = append(parts, "revision "+rev)
	}
	if v.Time != "" {
		parts = append(parts, v.Time)
	}
	return strings.Join(parts, ", ") + " (" + v.GoVersion + ", " + v.Platform + ")"
}

func newVersionCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print olmcat's version and the source revision it was built from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := buildVersion()
			switch output {
			case "text":
				_, err := fmt.Fprintln(cmd.OutOrStdout(), v)
				return err
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			return usageError{fmt.Errorf("-o must be text or json, not %q", output)}
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}
