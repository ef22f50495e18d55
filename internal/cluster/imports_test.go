package cluster

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// kfakePath is franz-go's embedded broker, which only internal/embedded
// may import.
const kfakePath = "github.com/twmb/franz-go/pkg/kfake"

// modulePath is this repository's module.
const modulePath = "github.com/offsetlab/offsetlab"

// TestNoKfake holds the import rule of docs/architecture.md: this package
// administers any cluster through the Kafka protocol, so neither it (its
// tests included) nor any package of this module it imports reaches kfake;
// what it needs of the embedded broker it gets through EmbeddedBroker.
func TestNoKfake(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(pkg string, path []string, tests bool)
	walk = func(pkg string, path []string, tests bool) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, modulePath+"/")))
		for _, imp := range imports(t, dir, tests) {
			chain := append(append([]string(nil), path...), imp)
			switch {
			case imp == kfakePath:
				t.Errorf("internal/cluster reaches kfake: %s", strings.Join(chain, " → "))
			case imp == modulePath+"/internal/embedded":
				t.Errorf("internal/cluster reaches internal/embedded: %s", strings.Join(chain, " → "))
			case strings.HasPrefix(imp, modulePath+"/"):
				walk(imp, chain, false)
			}
		}
	}
	walk(modulePath+"/internal/cluster", []string{"internal/cluster"}, true)
	if len(seen) < 2 {
		t.Fatalf("walked %d packages: the walk found none of internal/cluster's imports", len(seen))
	}
}

// imports are the import paths of dir's Go files, its tests' only when
// tests is set.
func imports(t *testing.T, dir string, tests bool) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		if !tests && strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}
