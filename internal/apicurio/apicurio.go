// Package apicurio runs Apicurio Registry 3.0.9 on this machine without
// Docker: a Schema Registry nobody here wrote, serving Confluent's REST
// API under /apis/ccompat/v7, for the end-to-end tests that check the
// dashboard's decoding against it and for anyone who wants one to point
// --schema-registry at.
//
// Fetch downloads the application from Maven Central once (the Quarkus
// build io.apicurio:apicurio-registry-app:3.0.9:all, a 104 MiB tar.gz of
// a runner jar and 359 library jars, 115 MiB unpacked), checks its size
// and SHA-256, and unpacks it into the cache. Start runs it with java
// (Java 17 or later) on 127.0.0.1 with Apicurio's default storage, an
// in-memory H2 database: every schema is gone when it stops. A start
// takes 30 to 60 seconds on two busy cores and holds about 250 MiB; the
// caller must Close the Registry, and the JVM gets a parent-death signal
// so that it never outlives its caller on Linux.
//
// The package speaks no HTTP itself (the packages under internal/ never
// import net/http): the caller hands it a Getter, as internal/localkafka
// takes one for the Kafka jars.
package apicurio

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Version is the Apicurio Registry release this package runs.
const Version = "3.0.9"

// archive is a tar.gz of the application, pinned by size and SHA-256.
type archive struct {
	url    string
	size   int64
	sha256 string // lower-case hex
}

// release is the archive on Maven Central (its SHA-256 is Maven Central's
// own .sha256 of it).
var release = archive{
	url:    "https://repo1.maven.org/maven2/io/apicurio/apicurio-registry-app/" + Version + "/apicurio-registry-app-" + Version + "-all.tar.gz",
	size:   108860403,
	sha256: "2b28181501a20cbf6efcd77f9b7153908fc01f3d3a7c32024c0bd9e1b04c8a43",
}

const (
	// runnerJar is the archive's entry point; its manifest names the
	// jars under lib/.
	runnerJar = "apicurio-registry-app-" + Version + "-runner.jar"
	// completeMarker is the file an unpacked directory holds once every
	// file of the archive is in it: the archive's SHA-256.
	completeMarker = ".offsetlab-complete"
)

// Getter fetches url's body: an HTTP GET answering 200, else an error.
type Getter func(ctx context.Context, url string) (io.ReadCloser, error)

// DefaultDir returns where Apicurio is unpacked: $OFFSETLAB_APICURIO_DIR
// if set, else $OFFSETLAB_CACHE/apicurio-registry-3.0.9, else
// root/.cache/apicurio-registry-3.0.9 (the cache scripts/test.sh fills
// with go run ./cmd/offsetlab-apicurio fetch).
func DefaultDir(getenv func(string) string, root string) string {
	if dir := getenv("OFFSETLAB_APICURIO_DIR"); dir != "" {
		return dir
	}
	cache := getenv("OFFSETLAB_CACHE")
	if cache == "" {
		cache = filepath.Join(root, ".cache")
	}
	return filepath.Join(cache, "apicurio-registry-"+Version)
}

// Fetched reports whether dir holds the whole unpacked archive.
func Fetched(dir string) bool { return fetched(dir, release) }

func fetched(dir string, a archive) bool {
	marker, err := os.ReadFile(filepath.Join(dir, completeMarker))
	return err == nil && strings.TrimSpace(string(marker)) == a.sha256
}

// Fetch makes dir hold Apicurio Registry, downloading the archive with get
// when it does not; log receives progress (nil discards it). The archive
// is unpacked as it downloads into a temporary sibling of dir, which
// becomes dir in one rename only once the archive's size and SHA-256 are
// those pinned here; a dir that exists without the marker of a finished
// fetch is left alone and is an error.
func Fetch(ctx context.Context, dir string, get Getter, log *slog.Logger) error {
	return fetch(ctx, dir, get, log, release)
}

func fetch(ctx context.Context, dir string, get Getter, log *slog.Logger, a archive) error {
	if fetched(dir, a) {
		return nil
	}
	if get == nil {
		return fmt.Errorf("apicurio: %s does not hold Apicurio Registry %s and no way to download it was given", dir, Version)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("apicurio: %s exists but is not a finished fetch of Apicurio Registry %s; remove it", dir, Version)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("apicurio: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, filepath.Base(dir)+".tmp.")
	if err != nil {
		return fmt.Errorf("apicurio: %w", err)
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	log.Info("downloading Apicurio Registry from Maven Central (once; later starts use this cache)", "megabytes", a.size>>20, "dir", dir)
	if err := download(ctx, get, a, tmp); err != nil {
		return fmt.Errorf("apicurio: GET %s: %w", a.url, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(a.sha256+"\n"), 0o644); err != nil {
		return fmt.Errorf("apicurio: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp made it 0700
		return fmt.Errorf("apicurio: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("apicurio: %w", err)
	}
	log.Info("Apicurio Registry unpacked", "dir", dir, "took", time.Since(start).Round(100*time.Millisecond))
	return nil
}

// download unpacks archive a into dir and checks its size and SHA-256.
func download(ctx context.Context, get Getter, a archive, dir string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	body, err := get(ctx, a.url)
	if err != nil {
		return err
	}
	defer body.Close()
	sum := sha256.New()
	counted := &countingReader{r: io.TeeReader(io.LimitReader(body, a.size+1), sum)}
	zr, err := gzip.NewReader(counted)
	if err != nil {
		return err
	}
	if err := untar(tar.NewReader(zr), dir); err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, counted); err != nil { // the rest, for the checksum
		return err
	}
	if got := hex.EncodeToString(sum.Sum(nil)); counted.n != a.size || got != a.sha256 {
		return fmt.Errorf("got %d bytes with SHA-256 %s, want %d bytes with SHA-256 %s", counted.n, got, a.size, a.sha256)
	}
	return nil
}

// untar writes the archive's directories and regular files under dir,
// refusing a name that would land outside it.
func untar(tr *tar.Reader, dir string) error {
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !filepath.IsLocal(h.Name) {
			return fmt.Errorf("the archive holds %q, outside its directory", h.Name)
		}
		dst := filepath.Join(dir, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(dst, 0o755)
		case tar.TypeReg:
			err = writeFile(dst, tr)
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(dst string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
