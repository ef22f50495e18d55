// Package static holds the pages' browser modules, stylesheets and icon,
// embedded into the binary, and serves them under a content-hashed URL
// (/static/{version}/…) with the catalogue files beside them (i18n/).
package static

//go:generate go run ./wiregen -o types/wire.d.ts

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// files are the pages' ES modules and stylesheets, by page — common/
// (the API client, the language, the catalogue's rendering, the heat
// strip, the base styles), exercises/ (the hands-on exercises' pages:
// the teacher's scoreboard, board*.js), partition/ (the partition page: app.js and
// its modules), sections/ (the Topics, Groups and Transactions pages:
// sections.js) — and the icon, compiled into the binary so that `go run
// ./cmd/server` needs nothing on disk. Go files (this one) and the
// modules' node tests (test/) are not embedded.
//
//go:embed favicon.svg common exercises partition sections
var files embed.FS

// assetSet is the embedded static tree, the catalogue files under i18n/
// (internal/catalog, the same sentences the server speaks), and their
// version: the first 12 hex digits of a SHA-256 over every file's name and
// content. The version is part of each asset's URL (/static/{version}/partition/app.js,
// /static/{version}/i18n/ko.json), so browsers may keep an asset forever
// and a new build is fetched at once. One version for the whole tree keeps
// the modules' relative imports (./log.js) on the same versioned path.
type assetSet struct {
	version string
	files   fs.FS
	i18n    fs.FS
}

// staticAssets hashes the embedded tree once, on first use; the result
// never changes while the process runs.
var staticAssets = sync.OnceValue(func() assetSet {
	var sub fs.FS = files
	var names []string
	_ = fs.WalkDir(sub, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, name)
		}
		return err
	})
	sort.Strings(names)
	h := sha256.New()
	hash := func(fsys fs.FS, name string) {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			panic(err)
		}
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
	}
	for _, name := range names {
		hash(sub, name)
	}
	for _, lang := range catalog.Languages() {
		hash(catalog.FS(), string(lang)+".json")
	}
	return assetSet{version: hex.EncodeToString(h.Sum(nil))[:12], files: sub, i18n: catalog.FS()}
})

// Version is the content hash in every asset's URL.
func Version() string { return staticAssets().version }

// URL is the versioned URL of a static file, e.g. "partition/app.js".
func URL(name string) string {
	return "/static/" + staticAssets().version + "/" + name
}

// Serve serves GET /static/{version}/*. The current version is cached for
// a year as immutable; a stale version (a page rendered by an older build)
// still gets the current file, but uncached, so the page keeps working
// until it is reloaded.
func Serve(w http.ResponseWriter, r *http.Request) {
	assets := staticAssets()
	name := path.Clean(chi.URLParam(r, "*"))
	files := assets.files
	if lang, ok := strings.CutPrefix(name, "i18n/"); ok {
		files, name = assets.i18n, lang
	}
	if info, err := fs.Stat(files, name); err != nil || info.IsDir() {
		http.NotFound(w, r)
		return
	}
	if chi.URLParam(r, "version") == assets.version {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	http.ServeFileFS(w, r, files, name)
}

// Favicon is GET /favicon.ico, which browsers ask for on pages that name
// no icon (an API answer opened in a tab, say): the dashboard's SVG icon.
func Favicon(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, URL("favicon.svg"), http.StatusFound)
}
