package localkafka

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// KafkaVersion is the Apache Kafka release this package runs.
const KafkaVersion = "4.3.1"

// mavenCentral is where the jars come from when they are not cached.
const mavenCentral = "https://repo1.maven.org/maven2/"

// completeMarker is the file a finished jar directory holds: the SHA-256
// of the pom its jars were resolved from (Maven's resolution, or this
// package's download of the same jars).
const completeMarker = ".offsetlab-complete"

// downloadedMarker marks a jar directory this package downloaded rather
// than Maven resolved, so that the manifest test does not compare the
// manifest with itself.
const downloadedMarker = ".offsetlab-downloaded"

// DefaultLibs returns where the Kafka jars are looked for, and downloaded
// to when missing: $OFFSETLAB_KAFKA_LIBS if
// set, else $OFFSETLAB_CACHE/kafka-4.3.1/libs, else
// root/.cache/kafka-4.3.1/libs. The server passes its working directory as
// root, so `go run ./cmd/server` from the repository uses the cache that
// scripts/test.sh fills (go run ./cmd/offsetlab-kafka fetch).
func DefaultLibs(getenv func(string) string, root string) string {
	if libs := getenv("OFFSETLAB_KAFKA_LIBS"); libs != "" {
		return libs
	}
	cache := getenv("OFFSETLAB_CACHE")
	if cache == "" {
		cache = filepath.Join(root, ".cache")
	}
	return filepath.Join(cache, "kafka-"+KafkaVersion, "libs")
}

// jar is one artifact of the manifest.
type jar struct {
	Group, Artifact, Version string
	Size                     int64
	SHA256                   string // lower-case hex
}

// File is the jar's name in the libs directory, as Maven copies it.
func (j jar) File() string { return j.Artifact + "-" + j.Version + ".jar" }

// Coordinates is groupId:artifactId:version.
func (j jar) Coordinates() string { return j.Group + ":" + j.Artifact + ":" + j.Version }

// URL is where a Maven repository at base keeps the jar.
func (j jar) URL(base string) string {
	return strings.TrimSuffix(base, "/") + "/" + strings.ReplaceAll(j.Group, ".", "/") + "/" + j.Artifact + "/" + j.Version + "/" + j.File()
}

// manifest is jars.txt: the jars scripts/kafka/pom.xml resolves.
type manifest struct {
	// PomSHA256 is the SHA-256 of the pom the jars were resolved from.
	PomSHA256 string
	Jars      []jar
}

//go:embed jars.txt
var manifestText string

// embeddedManifest is jars.txt, parsed once.
var embeddedManifest = sync.OnceValues(func() (manifest, error) { return parseManifest(manifestText) })

// parseManifest reads "pom-sha256 HEX" and "group:artifact:version SIZE
// HEX" lines; # starts a comment line.
func parseManifest(text string) (manifest, error) {
	var m manifest
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if f[0] == "pom-sha256" && len(f) == 2 && isSHA256(f[1]) {
			m.PomSHA256 = f[1]
			continue
		}
		coords := strings.Split(f[0], ":")
		if len(f) != 3 || len(coords) != 3 || !isSHA256(f[2]) {
			return manifest{}, fmt.Errorf("jars.txt line %d: want groupId:artifactId:version SIZE SHA256, got %q", line, sc.Text())
		}
		size, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || size <= 0 {
			return manifest{}, fmt.Errorf("jars.txt line %d: size %q", line, f[1])
		}
		j := jar{Group: coords[0], Artifact: coords[1], Version: coords[2], Size: size, SHA256: f[2]}
		if seen[j.File()] {
			return manifest{}, fmt.Errorf("jars.txt line %d: %s twice", line, j.File())
		}
		seen[j.File()] = true
		m.Jars = append(m.Jars, j)
	}
	if m.PomSHA256 == "" || len(m.Jars) == 0 {
		return manifest{}, errors.New("jars.txt: no pom-sha256 line or no jars")
	}
	return m, nil
}

func isSHA256(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == sha256.Size && s == strings.ToLower(s)
}

// missing lists the manifest's jars that libs lacks or holds with another
// size. Sizes, not checksums: every writer of the directory (this package,
// a Maven resolution) renames it into place only once each jar is whole, so
// a size check costs a stat and still catches a foreign or damaged jar.
func (m manifest) missing(libs string) []string {
	var out []string
	for _, j := range m.Jars {
		st, err := os.Stat(filepath.Join(libs, j.File()))
		if err != nil || st.Size() != j.Size {
			out = append(out, j.File())
		}
	}
	return out
}

// fetcher downloads the manifest's jars.
type fetcher struct {
	manifest manifest
	// repository is the Maven repository's base URL.
	repository string
	get        Getter
	log        *slog.Logger
}

// Getter fetches url's body: an HTTP GET answering 200, else an error
// (cmd/server gives net/http's; this package speaks no HTTP itself).
type Getter func(ctx context.Context, url string) (io.ReadCloser, error)

// FetchJars makes libs hold every Kafka jar Start needs, downloading the
// missing ones from Maven Central with get (see ensureJars); log receives
// progress (nil discards it). It does nothing when they are all there.
func FetchJars(ctx context.Context, libs string, get Getter, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m, err := embeddedManifest()
	if err != nil {
		return jarsError(libs, err)
	}
	abs, err := filepath.Abs(libs)
	if err != nil {
		return jarsError(libs, err)
	}
	return fetcher{manifest: m, repository: mavenCentral, get: get, log: log}.ensureJars(ctx, abs)
}

// ensureJars makes libs hold every jar of the manifest, downloading them
// when it does not. One download runs at a time per cache directory (each
// takes the lock file beside libs); the jars
// go into a temporary sibling directory, each checked against its size and
// SHA-256, which then replaces libs in one rename. A libs directory that
// holds other files and was not made by a fetch is never replaced.
func (f fetcher) ensureJars(ctx context.Context, libs string) error {
	if len(f.manifest.missing(libs)) == 0 {
		return nil
	}
	if f.get == nil {
		return jarsError(libs, errors.New("jars are missing and no way to download them was given (Config.Get)"))
	}
	parent := filepath.Dir(libs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return jarsError(libs, err)
	}
	unlock, err := lockFile(ctx, filepath.Join(parent, ".fetch.lock"), func() {
		f.log.Info("waiting for another download of the Kafka jars", "libs", libs)
	})
	if err != nil {
		return jarsError(libs, err)
	}
	defer unlock()
	missing := f.manifest.missing(libs)
	if len(missing) == 0 {
		return nil
	}
	if err := replaceable(libs, missing); err != nil {
		return jarsError(libs, err)
	}
	start := time.Now()
	var total int64
	for _, j := range f.manifest.Jars {
		total += j.Size
	}
	f.log.Info("downloading the Apache Kafka jars from Maven Central (once; later starts use this cache)",
		"jars", len(f.manifest.Jars), "megabytes", total>>20, "libs", libs)
	tmp, err := os.MkdirTemp(parent, filepath.Base(libs)+".tmp.")
	if err != nil {
		return jarsError(libs, err)
	}
	defer os.RemoveAll(tmp)
	for _, j := range f.manifest.Jars {
		if err := f.download(ctx, j, filepath.Join(tmp, j.File())); err != nil {
			return jarsError(libs, err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(f.manifest.PomSHA256+"\n"), 0o644); err != nil {
		return jarsError(libs, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, downloadedMarker), []byte("downloaded by the Offset Lab server from Maven Central, as jars.txt lists\n"), 0o644); err != nil {
		return jarsError(libs, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp made it 0700
		return jarsError(libs, err)
	}
	if err := swapIn(tmp, libs); err != nil {
		return jarsError(libs, err)
	}
	f.log.Info("Kafka jars downloaded", "jars", len(f.manifest.Jars), "took", time.Since(start).Round(100*time.Millisecond))
	return nil
}

// replaceable refuses to replace a directory that someone filled with
// other jars (a Kafka distribution's libs, say): only a missing or empty
// directory, or one a fetch made (it has the marker), may be replaced.
func replaceable(libs string, missing []string) error {
	entries, err := os.ReadDir(libs)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(libs, completeMarker)); err == nil {
		return nil
	}
	if len(missing) > 3 {
		missing = append(missing[:3:3], "…")
	}
	return fmt.Errorf("%s holds other files than the Kafka %s jars this server needs (missing or different: %s); remove it, or point --kafka-libs (OFFSETLAB_KAFKA_LIBS) at an empty directory", libs, KafkaVersion, strings.Join(missing, ", "))
}

// swapIn puts the directory tmp in the place of libs: an existing libs is
// renamed aside first and removed afterwards, so that libs is at every
// moment either the old directory, absent, or the new one.
func swapIn(tmp, libs string) error {
	var old string
	if _, err := os.Stat(libs); err == nil {
		old = fmt.Sprintf("%s.old.%s", libs, rand.Text()[:8])
		if err := os.Rename(libs, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, libs); err != nil {
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// download writes jar j to dst and checks its size and SHA-256.
func (f fetcher) download(ctx context.Context, j jar, dst string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	url := j.URL(f.repository)
	body, err := f.get(ctx, url)
	if err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	defer body.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	sum := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, sum), io.LimitReader(body, j.Size+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	if got := hex.EncodeToString(sum.Sum(nil)); n != j.Size || got != j.SHA256 {
		return fmt.Errorf("GET %s: got %d bytes with SHA-256 %s, want %d bytes with SHA-256 %s (jars.txt)", url, n, got, j.Size, j.SHA256)
	}
	return nil
}

func jarsError(libs string, err error) error {
	return problem.Wrap(err, problem.Internal, "error.localKafkaJars", "libs", libs, "detail", err.Error())
}
