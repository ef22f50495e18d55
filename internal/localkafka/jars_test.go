package localkafka

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestManifest(t *testing.T) {
	t.Parallel()
	m, err := embeddedManifest()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, j := range m.Jars {
		files = append(files, j.File())
	}
	for _, want := range []string{"kafka_2.13-" + KafkaVersion + ".jar", "kafka-tools-" + KafkaVersion + ".jar", "kafka-clients-" + KafkaVersion + ".jar", "log4j-slf4j-impl-2.25.4.jar"} {
		if !slices.Contains(files, want) {
			t.Errorf("jars.txt lacks %s", want)
		}
	}
	j := jar{Group: "org.apache.kafka", Artifact: "kafka_2.13", Version: KafkaVersion}
	if got, want := j.URL(mavenCentral), "https://repo1.maven.org/maven2/org/apache/kafka/kafka_2.13/4.3.1/kafka_2.13-4.3.1.jar"; got != want {
		t.Errorf("URL = %s, want %s", got, want)
	}
	bad := []string{
		"pom-sha256 " + strings.Repeat("a", 64) + "\n",                                                                                     // no jars
		"a:b:1 10 " + strings.Repeat("a", 64) + "\n",                                                                                       // no pom line
		"pom-sha256 " + strings.Repeat("a", 64) + "\na:b:1 ten " + strings.Repeat("a", 64) + "\n",                                          // size
		"pom-sha256 " + strings.Repeat("a", 64) + "\na:b 10 " + strings.Repeat("a", 64) + "\n",                                             // coordinates
		"pom-sha256 " + strings.Repeat("a", 64) + "\na:b:1 10 " + strings.Repeat("A", 64) + "\n",                                           // hex case
		"pom-sha256 " + strings.Repeat("a", 64) + "\na:b:1 10 " + strings.Repeat("a", 64) + "\nc:b:1 10 " + strings.Repeat("b", 64) + "\n", // same file twice
	}
	for _, text := range bad {
		if _, err := parseManifest(text); err == nil {
			t.Errorf("parseManifest accepted %q", text)
		}
	}
}

// TestManifestMatchesPom keeps jars.txt equal to what
// scripts/kafka/pom.xml resolves: the pom's checksum always, and, when a
// Maven resolution of this pom filled the cache, every jar's name, size
// and SHA-256. OFFSETLAB_UPDATE_MANIFEST=1 (needs Maven) resolves the pom
// and rewrites jars.txt from what Maven fetched.
func TestManifestMatchesPom(t *testing.T) {
	root := repoRoot(t)
	pom, err := os.ReadFile(filepath.Join(root, "scripts", "kafka", "pom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	pomSum := sha256Hex(pom)
	libs := DefaultLibs(os.Getenv, root)
	text := manifestText
	if os.Getenv("OFFSETLAB_UPDATE_MANIFEST") != "" {
		text, libs = updateManifest(t, root, pomSum)
	}
	m, err := parseManifest(text)
	if err != nil {
		t.Fatal(err)
	}
	if m.PomSHA256 != pomSum {
		t.Fatalf("scripts/kafka/pom.xml changed since jars.txt was written (pom-sha256 %s, the pom's is %s): run OFFSETLAB_UPDATE_MANIFEST=1 go test ./internal/localkafka -run TestManifestMatchesPom (needs Maven)", m.PomSHA256, pomSum)
	}
	marker, err := os.ReadFile(filepath.Join(libs, completeMarker))
	if err != nil || strings.TrimSpace(string(marker)) != pomSum {
		t.Skipf("the jars are not compared: %s holds no jars Maven resolved for this pom.xml (%v); OFFSETLAB_UPDATE_MANIFEST=1 resolves them", libs, err)
	}
	if _, err := os.Stat(filepath.Join(libs, downloadedMarker)); err == nil {
		t.Skipf("the jars are not compared: %s was downloaded from jars.txt itself, Maven did not resolve it; OFFSETLAB_UPDATE_MANIFEST=1 resolves the pom", libs)
	}
	entries, err := os.ReadDir(libs)
	if err != nil {
		t.Fatal(err)
	}
	var fetched []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jar") {
			fetched = append(fetched, e.Name())
		}
	}
	var listed []string
	for _, j := range m.Jars {
		listed = append(listed, j.File())
		b, err := os.ReadFile(filepath.Join(libs, j.File()))
		if err != nil {
			continue // reported below
		}
		if int64(len(b)) != j.Size || sha256Hex(b) != j.SHA256 {
			t.Errorf("%s: Maven fetched %d bytes with SHA-256 %s; jars.txt says %d bytes, %s", j.File(), len(b), sha256Hex(b), j.Size, j.SHA256)
		}
	}
	for _, f := range fetched {
		if !slices.Contains(listed, f) {
			t.Errorf("Maven resolved %s, which jars.txt does not list", f)
		}
	}
	for _, f := range listed {
		if !slices.Contains(fetched, f) {
			t.Errorf("jars.txt lists %s, which Maven did not resolve", f)
		}
	}
}

// updateManifest resolves the pom with Maven (its runtime dependency list
// and the jars, copied into a temporary libs directory), writes jars.txt
// from them and returns it with that directory.
func updateManifest(t *testing.T, root, pomSum string) (string, string) {
	t.Helper()
	work := t.TempDir()
	pom, err := os.ReadFile(filepath.Join(root, "scripts", "kafka", "pom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "pom.xml"), pom, 0o644); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(work, "deps.txt")
	cmd := exec.Command("mvn", "-q", "-B", "-Dstyle.color=never", "-f", filepath.Join(work, "pom.xml"),
		"dependency:list", "-DincludeScope=runtime", "-DoutputFile="+list)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mvn dependency:list: %v\n%s", err, out)
	}
	libs := filepath.Join(work, "libs")
	cmd = exec.Command("mvn", "-q", "-B", "-Dstyle.color=never", "-f", filepath.Join(work, "pom.xml"),
		"dependency:copy-dependencies", "-DincludeScope=runtime", "-DoutputDirectory="+libs)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mvn dependency:copy-dependencies: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(libs, completeMarker), []byte(pomSum+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deps, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(deps)))
	for sc.Scan() {
		f := strings.Split(strings.TrimSpace(sc.Text()), ":")
		if len(f) < 5 {
			continue
		}
		if len(f) != 5 || f[2] != "jar" {
			t.Fatalf("dependency %q: only plain jars without a classifier are supported", sc.Text())
		}
		j := jar{Group: f[0], Artifact: f[1], Version: f[3]}
		b, err := os.ReadFile(filepath.Join(libs, j.File()))
		if err != nil {
			t.Fatalf("%v: Maven did not copy it", err)
		}
		lines = append(lines, fmt.Sprintf("%s %d %s", j.Coordinates(), len(b), sha256Hex(b)))
	}
	slices.Sort(lines)
	var header strings.Builder
	for line := range strings.Lines(manifestText) {
		if !strings.HasPrefix(line, "#") {
			break
		}
		header.WriteString(line)
	}
	text := header.String() + "pom-sha256 " + pomSum + "\n" + strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile("jars.txt", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote jars.txt: %d jars", len(lines))
	return text, libs
}

// fakeRepository serves jars of the given contents as a Maven repository
// does, counting the requests; bad names a jar served with other bytes.
func fakeRepository(t *testing.T, contents map[string]string, bad string) (manifest, *httptest.Server, *atomic.Int32) {
	t.Helper()
	m := manifest{PomSHA256: strings.Repeat("0", 64)}
	byPath := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(contents)) {
		j := jar{Group: "org.example", Artifact: name, Version: "1.0", Size: int64(len(contents[name])), SHA256: sha256Hex([]byte(contents[name]))}
		m.Jars = append(m.Jars, j)
		body := contents[name]
		if name == bad {
			body = strings.ToUpper(body)
		}
		byPath[strings.TrimPrefix(j.URL("/"), "/")] = body
	}
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		body, ok := byPath[strings.TrimPrefix(r.URL.Path, "/maven2/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return m, srv, &requests
}

func TestEnsureJars(t *testing.T) {
	t.Parallel()
	contents := map[string]string{"kafka-a": "jar of kafka-a", "kafka-b": "the jar of kafka-b"}
	discard := slog.New(slog.DiscardHandler)

	t.Run("download, then use the cache", func(t *testing.T) {
		t.Parallel()
		m, srv, requests := fakeRepository(t, contents, "")
		f := fetcher{manifest: m, repository: srv.URL + "/maven2/", get: httpGetter(srv.Client()), log: discard}
		parent := t.TempDir()
		libs := filepath.Join(parent, "libs")
		if err := f.ensureJars(t.Context(), libs); err != nil {
			t.Fatal(err)
		}
		for _, j := range m.Jars {
			b, err := os.ReadFile(filepath.Join(libs, j.File()))
			if err != nil || string(b) != contents[j.Artifact] {
				t.Errorf("%s: %q, %v", j.File(), b, err)
			}
		}
		if b, err := os.ReadFile(filepath.Join(libs, completeMarker)); err != nil || strings.TrimSpace(string(b)) != m.PomSHA256 {
			t.Errorf("marker: %q, %v; want the pom's checksum", b, err)
		}
		if got := requests.Load(); got != 2 {
			t.Errorf("%d requests, want 2", got)
		}
		if err := f.ensureJars(t.Context(), libs); err != nil {
			t.Fatal(err)
		}
		if got := requests.Load(); got != 2 {
			t.Errorf("%d requests after a second call, want still 2: the cache is complete", got)
		}
		assertOnly(t, parent, "libs", ".fetch.lock")
	})

	t.Run("a bad checksum leaves nothing behind", func(t *testing.T) {
		t.Parallel()
		m, srv, _ := fakeRepository(t, contents, "kafka-b")
		f := fetcher{manifest: m, repository: srv.URL + "/maven2/", get: httpGetter(srv.Client()), log: discard}
		parent := t.TempDir()
		err := f.ensureJars(t.Context(), filepath.Join(parent, "libs"))
		if err == nil || !strings.Contains(err.Error(), "SHA-256") {
			t.Fatalf("err = %v, want a checksum error", err)
		}
		assertOnly(t, parent, ".fetch.lock")
	})

	t.Run("missing from the repository", func(t *testing.T) {
		t.Parallel()
		m, srv, _ := fakeRepository(t, contents, "")
		m.Jars = append(m.Jars, jar{Group: "org.example", Artifact: "absent", Version: "1", Size: 1, SHA256: strings.Repeat("1", 64)})
		f := fetcher{manifest: m, repository: srv.URL + "/maven2/", get: httpGetter(srv.Client()), log: discard}
		parent := t.TempDir()
		if err := f.ensureJars(t.Context(), filepath.Join(parent, "libs")); err == nil || !strings.Contains(err.Error(), "404") {
			t.Fatalf("err = %v, want a 404", err)
		}
		assertOnly(t, parent, ".fetch.lock")
	})

	t.Run("a foreign directory is never replaced", func(t *testing.T) {
		t.Parallel()
		m, srv, requests := fakeRepository(t, contents, "")
		f := fetcher{manifest: m, repository: srv.URL + "/maven2/", get: httpGetter(srv.Client()), log: discard}
		libs := filepath.Join(t.TempDir(), "libs")
		os.MkdirAll(libs, 0o755)
		os.WriteFile(filepath.Join(libs, "kafka-a-1.0.jar"), []byte("something else"), 0o644)
		err := f.ensureJars(t.Context(), libs)
		if err == nil || !strings.Contains(err.Error(), "OFFSETLAB_KAFKA_LIBS") {
			t.Fatalf("err = %v, want a refusal naming OFFSETLAB_KAFKA_LIBS", err)
		}
		if b, _ := os.ReadFile(filepath.Join(libs, "kafka-a-1.0.jar")); string(b) != "something else" || requests.Load() != 0 {
			t.Errorf("the directory was touched (%q, %d requests)", b, requests.Load())
		}
	})

	t.Run("an earlier fetch for another pom is replaced", func(t *testing.T) {
		t.Parallel()
		m, srv, _ := fakeRepository(t, contents, "")
		f := fetcher{manifest: m, repository: srv.URL + "/maven2/", get: httpGetter(srv.Client()), log: discard}
		parent := t.TempDir()
		libs := filepath.Join(parent, "libs")
		os.MkdirAll(libs, 0o755)
		os.WriteFile(filepath.Join(libs, "kafka-a-0.9.jar"), []byte("old"), 0o644)
		os.WriteFile(filepath.Join(libs, completeMarker), []byte("another pom\n"), 0o644)
		if err := f.ensureJars(t.Context(), libs); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(libs, "kafka-a-0.9.jar")); err == nil {
			t.Error("the old jar is still there")
		}
		if len(m.missing(libs)) != 0 {
			t.Errorf("missing after the download: %v", m.missing(libs))
		}
		assertOnly(t, parent, "libs", ".fetch.lock")
	})
}

// assertOnly fails unless dir holds exactly names: no temporary
// directories left over.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(got)
	slices.Sort(names)
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

func TestDefaultLibs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "/repo/.cache/kafka-4.3.1/libs"},
		{map[string]string{"OFFSETLAB_CACHE": "/c"}, "/c/kafka-4.3.1/libs"},
		{map[string]string{"OFFSETLAB_CACHE": "/c", "OFFSETLAB_KAFKA_LIBS": "/l"}, "/l"},
	}
	for _, tt := range tests {
		getenv := func(k string) string { return tt.env[k] }
		if got := DefaultLibs(getenv, "/repo"); got != tt.want {
			t.Errorf("DefaultLibs(%v) = %s, want %s", tt.env, got, tt.want)
		}
	}
}

// httpGetter is the Getter the commands give (cmd/internal/download), over client.
func httpGetter(client *http.Client) Getter {
	return func(ctx context.Context, url string) (io.ReadCloser, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("%s", resp.Status)
		}
		return resp.Body, nil
	}
}
