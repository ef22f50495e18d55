package apicurio

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestDefaultDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"the repository's cache", nil, filepath.Join("/repo", ".cache", "apicurio-registry-"+Version)},
		{"OFFSETLAB_CACHE", map[string]string{"OFFSETLAB_CACHE": "/c"}, filepath.Join("/c", "apicurio-registry-"+Version)},
		{"OFFSETLAB_APICURIO_DIR first", map[string]string{"OFFSETLAB_CACHE": "/c", "OFFSETLAB_APICURIO_DIR": "/a"}, "/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DefaultDir(func(k string) string { return tt.env[k] }, "/repo"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// tarGz is a tar.gz of files (name → content), in order of names given.
func tarGz(t *testing.T, names []string, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range names {
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pinned is an archive pinning body's size and SHA-256.
func pinned(body []byte) archive {
	sum := sha256.Sum256(body)
	return archive{url: "https://maven.example/app-all.tar.gz", size: int64(len(body)), sha256: hex.EncodeToString(sum[:])}
}

// TestFetch: a fetch unpacks the archive whose size and SHA-256 are those
// pinned, and a second fetch downloads nothing; an archive with another
// checksum, or a name outside its directory, leaves no directory and no
// temporary one behind; a directory that is not a finished fetch is left
// alone.
func TestFetch(t *testing.T) {
	t.Parallel()
	good := tarGz(t, []string{runnerJar, "lib/a.jar"}, map[string]string{runnerJar: "runner", "lib/a.jar": "a"})
	escaping := tarGz(t, []string{"../outside.jar"}, map[string]string{"../outside.jar": "x"})
	tests := []struct {
		name    string
		served  []byte
		pin     archive
		present bool // dir exists before the fetch, without the marker
		wantErr bool
	}{
		{"the pinned archive", good, pinned(good), false, false},
		{"another checksum", good, archive{url: "u", size: int64(len(good)), sha256: hex.EncodeToString(make([]byte, 32))}, false, true},
		{"a name outside its directory", escaping, pinned(escaping), false, true},
		{"a directory someone else made", good, pinned(good), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			parent := t.TempDir()
			dir := filepath.Join(parent, "apicurio")
			if tt.present {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			gets := 0
			get := func(context.Context, string) (io.ReadCloser, error) {
				gets++
				return io.NopCloser(bytes.NewReader(tt.served)), nil
			}
			err := fetch(context.Background(), dir, get, nil, tt.pin)
			if (err != nil) != tt.wantErr {
				t.Fatalf("fetch: %v, want an error %v", err, tt.wantErr)
			}
			entries, _ := os.ReadDir(parent)
			if tt.wantErr {
				if want := map[bool]int{true: 1, false: 0}[tt.present]; len(entries) != want {
					t.Errorf("after a failed fetch %s holds %d entries, want %d", parent, len(entries), want)
				}
				return
			}
			if got, err := os.ReadFile(filepath.Join(dir, "lib", "a.jar")); err != nil || string(got) != "a" || !fetched(dir, tt.pin) {
				t.Fatalf("lib/a.jar: %q %v; fetched %v", got, err, fetched(dir, tt.pin))
			}
			if len(entries) != 1 {
				t.Errorf("%s holds %d entries, want the one directory", parent, len(entries))
			}
			if err := fetch(context.Background(), dir, func(context.Context, string) (io.ReadCloser, error) {
				return nil, errors.New("no second download")
			}, nil, tt.pin); err != nil || gets != 1 {
				t.Errorf("a second fetch: %v after %d downloads", err, gets)
			}
		})
	}
}
