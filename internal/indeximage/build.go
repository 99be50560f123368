package indeximage

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Defaults of BuildOptions, matching what `opm generate dockerfile` images use.
const (
	DefaultConfigsPath = "/configs"
	DefaultCachePath   = "/tmp/cache"
	defaultOPMBinary   = "/bin/opm"
)

// BuildOptions tune BuildFBCImage. The zero value is what `olmcat migrate --to-image` uses.
type BuildOptions struct {
	// ConfigsPath is where the catalog goes in the image; "" means /configs.
	ConfigsPath string
	// CacheDir, if set, is a pre-built serve cache (`opm serve DIR --cache-dir X --cache-only`
	// of the same catalog) added at CachePath ("" means /tmp/cache); the command then serves
	// with --cache-dir, as opm's generated Dockerfile does.
	CacheDir, CachePath string
	// Created stamps the config and the new history entries; zero means the base image's own
	// created time, so that the result depends on the inputs only.
	Created time.Time
	// CacheAsRun makes the cache layer what a Dockerfile's `RUN opm serve --cache-only` leaves:
	// its files keep the permission bits they were written with (opm's cache digest covers
	// them) and belong to the user the base image runs as (its numeric USER, else root).
	CacheAsRun bool
	// SpoolDir, if set, is where the new layers are kept compressed once their digest is
	// computed, so that writing them does not compress them again (the caller removes it after
	// the image is written); "" compresses them again on each read.
	SpoolDir string
	// LayerTime is the modification time of every entry of the new layers (SOURCE_DATE_EPOCH);
	// zero means the Unix epoch.
	LayerTime time.Time
	// OPMBinary runs `serve`; "" means the base image's entrypoint when it is an opm binary,
	// else /bin/opm.
	OPMBinary string
	// ExtraLabels are set on the image after the index labels.
	ExtraLabels map[string]string
	// DatabaseLayers are diff IDs already known to hold nothing but the database (a hint from
	// Fetch, see Catalog.DatabaseLayers), so they are dropped without being read again.
	DatabaseLayers []v1.Hash
}

// BuildFBCImage turns an index image into an FBC index image serving configsDir: the base's
// layers minus those holding only the SQLite database (and a whiteout hiding what is left of
// its directory), plus a /configs layer and optionally a serve-cache layer; the database label
// removed, the configs label set, the command changed to `serve /configs` with the base's opm
// binary. The result is reproducible: the same base and the same files give the same digest.
// configsDir must stay unchanged until the image has been written.
func BuildFBCImage(base v1.Image, configsDir string, opts BuildOptions) (v1.Image, error) {
	return newBuilder(configsDir, opts).image(base)
}

// builder builds FBC images on one or more bases, making each new layer once.
type builder struct {
	configsDir             string
	opts                   BuildOptions
	configsPath, cachePath string
	layers                 map[string]*dirLayer
}

func newBuilder(configsDir string, opts BuildOptions) *builder {
	return &builder{configsDir: configsDir, opts: opts, layers: map[string]*dirLayer{},
		configsPath: cleanImagePath(opts.ConfigsPath, DefaultConfigsPath), cachePath: cleanImagePath(opts.CachePath, DefaultCachePath)}
}

func (b *builder) layer(hostDir, imagePath string, whiteouts []string, mt types.MediaType, own ownership) (*dirLayer, error) {
	key := strings.Join(append([]string{hostDir, imagePath, string(mt), fmt.Sprint(own)}, whiteouts...), "\x00")
	if l, ok := b.layers[key]; ok {
		return l, nil
	}
	own.spoolDir = b.opts.SpoolDir
	l, err := newOwnedDirLayer(hostDir, imagePath, whiteouts, mt, b.opts.LayerTime, own)
	if err != nil {
		return nil, err
	}
	b.layers[key] = l
	return l, nil
}

func (b *builder) image(base v1.Image) (v1.Image, error) {
	cf, err := base.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("base image: read config: %w", err)
	}
	if cf == nil {
		return nil, errors.New("base image: it has no config: it is not a container image; give an index image as the base")
	}
	manifestType, err := base.MediaType()
	if err != nil {
		return nil, fmt.Errorf("base image: %w", err)
	}
	configType, layerType := types.OCIConfigJSON, types.OCILayer
	if manifestType == types.DockerManifestSchema2 {
		configType, layerType = types.DockerConfigJSON, types.DockerLayer
	} else if manifestType != types.OCIManifestSchema1 {
		return nil, fmt.Errorf("base image has manifest media type %q; it must be a Docker v2 or OCI image manifest", manifestType)
	}
	removed := databaseDir(cf.Config.Labels[DatabaseLabel])
	if removed != "" && (b.configsPath == removed || strings.HasPrefix(b.configsPath, removed+"/")) {
		return nil, fmt.Errorf("configs path /%s lies inside /%s, which is removed with the database; choose another ConfigsPath", b.configsPath, removed)
	}
	adds, err := keptBaseLayers(base, cf, removed, b.opts.DatabaseLayers)
	if err != nil {
		return nil, err
	}
	created := b.opts.Created
	if created.IsZero() {
		created = cf.Created.Time
	}
	stamp := v1.Time{Time: created.UTC()}

	var whiteouts []string
	if removed != "" {
		whiteouts = []string{removed}
	}
	configsLayer, err := b.layer(b.configsDir, b.configsPath, whiteouts, layerType, ownership{})
	if err != nil {
		return nil, err
	}
	adds = append(adds, mutate.Addendum{Layer: configsLayer, MediaType: layerType,
		History: v1.History{Created: stamp, CreatedBy: fmt.Sprintf("olmcat: ADD catalog /%s", b.configsPath), Comment: "File-Based Catalog"}})
	cmd := []string{"serve", "/" + b.configsPath}
	if b.opts.CacheDir != "" {
		own := ownership{}
		if b.opts.CacheAsRun {
			own = ownership{keepModes: true}
			own.uid, own.gid = numericUser(cf.Config.User)
		}
		cacheLayer, err := b.layer(b.opts.CacheDir, b.cachePath, nil, layerType, own)
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.Addendum{Layer: cacheLayer, MediaType: layerType,
			History: v1.History{Created: stamp, CreatedBy: fmt.Sprintf("olmcat: ADD serve cache /%s", b.cachePath)}})
		cmd = append(cmd, "--cache-dir=/"+b.cachePath)
	}

	img, err := mutate.Append(mutate.ConfigMediaType(mutate.MediaType(empty.Image, manifestType), configType), adds...)
	if err != nil {
		return nil, err
	}
	out, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	out = out.DeepCopy()
	out.Created = stamp
	out.Architecture, out.OS, out.OSVersion, out.Variant, out.OSFeatures = cf.Architecture, cf.OS, cf.OSVersion, cf.Variant, cf.OSFeatures
	out.Author = cf.Author
	out.Config = *cf.Config.DeepCopy()
	out.Config.Labels = indexLabels(cf.Config.Labels, b.configsPath, b.opts.ExtraLabels)
	out.Config.Entrypoint = []string{opmBinary(b.opts.OPMBinary, cf.Config.Entrypoint)}
	out.Config.Cmd = cmd
	return mutate.ConfigFile(img, out)
}

func cleanImagePath(p, def string) string {
	if strings.TrimSpace(p) == "" {
		p = def
	}
	return strings.Trim(path.Clean("/"+p), "/")
}

// databaseDir is what goes with the database: its directory (/database), or only the file when
// it sits at the filesystem root. "" when the base is not a SQLite index image.
func databaseDir(label string) string {
	if strings.TrimSpace(label) == "" {
		return ""
	}
	p := strings.Trim(path.Clean("/"+label), "/")
	if d := parentOf(p); d != "" {
		return d
	}
	return p
}

func indexLabels(base map[string]string, configsPath string, extra map[string]string) map[string]string {
	labels := map[string]string{}
	for k, v := range base {
		labels[k] = v
	}
	delete(labels, DatabaseLabel)
	labels[ConfigsLabel] = "/" + configsPath
	for k, v := range extra {
		labels[k] = v
	}
	return labels
}

func opmBinary(explicit string, entrypoint []string) string {
	if explicit != "" {
		return explicit
	}
	if len(entrypoint) > 0 && strings.Contains(path.Base(entrypoint[0]), "opm") {
		return entrypoint[0]
	}
	return defaultOPMBinary
}

// numericUser is the uid and gid of an image's USER when they are numbers ("1001", "1001:0");
// a name (which only the image's /etc/passwd knows) or nothing is root.
func numericUser(user string) (uid, gid int) {
	u, g, _ := strings.Cut(user, ":")
	uid, err := strconv.Atoi(u)
	if err != nil || uid < 0 {
		return 0, 0
	}
	if gid, err = strconv.Atoi(g); err != nil || gid < 0 {
		gid = 0
	}
	return uid, gid
}
