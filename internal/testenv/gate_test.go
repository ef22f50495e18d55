package testenv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// heavyMarks are what reaching a heavy setup looks like in a test's
// source: the environment variables that name it, the commands that start
// it and the calls that launch it.
var heavyMarks = []struct {
	heavy   Heavy
	gate    string   // the constant a gated function names: testenv.Browser …
	strings []string // a string literal holding one of these
	execs   []string // a program os/exec is given by name
	calls   []string // a call of package.Func
}{
	{Browser, "Browser", []string{"OFFSETLAB_CHROMIUM", "/usr/bin/chromium"}, []string{"chromium"}, []string{"chromedp.NewExecAllocator"}},
	{Python, "Python", []string{"OFFSETLAB_PYTHON"}, []string{"python", "python3"}, nil},
	{JVM, "JVM", []string{"OFFSETLAB_KAFKA_BROKERS", "OFFSETLAB_KAFKA_TRIPLE"}, []string{"java", "javac"}, []string{"localkafka.Start", "localkafka.DefaultJava", "apicurio.Start"}},
}

// ungated is one function that reaches a heavy setup without naming its
// gate.
type ungated struct {
	where string // file:line of the function
	fn    string
	heavy Heavy
}

// scanGates parses the test files src holds (file name → source, one
// package) and returns the functions that reach a heavy setup without
// naming its gate (testenv.Needs(t, testenv.X) or testenv.May(testenv.X)),
// and how many functions name one.
func scanGates(t *testing.T, src map[string]string) (bad []ungated, gated int) {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range slices.Sorted(mapKeys(src)) {
		f, err := parser.ParseFile(fset, name, src[name], 0)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		files = append(files, f)
	}
	for _, m := range heavyMarks {
		consts := markedConsts(files, m.strings)
		for _, f := range files {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				reaches, names := false, false
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.CallExpr:
						if execsOne(n, m.execs) {
							reaches = true
						}
					case *ast.BasicLit:
						if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && slices.Contains(m.strings, s) {
							reaches = true
						}
					case *ast.Ident:
						if consts[n.Name] {
							reaches = true
						}
					case *ast.SelectorExpr:
						if x, ok := n.X.(*ast.Ident); ok {
							switch {
							case x.Name == "testenv" && n.Sel.Name == m.gate:
								names = true
							case slices.Contains(m.calls, x.Name+"."+n.Sel.Name):
								reaches = true
							}
						}
					}
					return true
				})
				if names {
					gated++
				}
				if reaches && !names {
					bad = append(bad, ungated{fset.Position(fn.Pos()).String(), fn.Name.Name, m.heavy})
				}
			}
		}
	}
	return bad, gated
}

// execsOne reports whether call is os/exec's (exec.Command("java", …),
// exec.LookPath("javac") …) given one of programs by name.
func execsOne(call *ast.CallExpr, programs []string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "exec" {
		return false
	}
	for _, arg := range call.Args {
		if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			return err == nil && slices.Contains(programs, s)
		}
	}
	return false
}

// markedConsts names the package's constants whose value is one of marks
// (const pythonEnv = "OFFSETLAB_PYTHON"), so that their uses count too.
func markedConsts(files []*ast.File, marks []string) map[string]bool {
	names := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				for i, val := range v.Values {
					if lit, ok := val.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(marks, s) && i < len(v.Names) {
							names[v.Names[i].Name] = true
						}
					}
				}
			}
		}
	}
	return names
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestScanGates: the scan finds a function that reaches each heavy setup
// without its gate, directly or through a constant, and accepts one that
// names it.
func TestScanGates(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // function: heavy
	}{
		{"browser through a constant", `package e2e
const chromiumEnv = "OFFSETLAB_CHROMIUM"
func chromiumPath(t *testing.T) string { return os.Getenv(chromiumEnv) }`, []string{"chromiumPath: a browser (Chromium)"}},
		{"browser gated", `package e2e
const chromiumEnv = "OFFSETLAB_CHROMIUM"
func chromiumPath(t *testing.T) string { testenv.Needs(t, testenv.Browser); return os.Getenv(chromiumEnv) }`, nil},
		{"a browser started by chromedp", `package e2e
func open(t *testing.T) { chromedp.NewExecAllocator(ctx) }`, []string{"open: a browser (Chromium)"}},
		{"python read optionally, gated", `package e2e
func check(t *testing.T) { if testenv.May(testenv.Python) && os.Getenv("OFFSETLAB_PYTHON") != "" {} }`, nil},
		{"python ungated", `package e2e
func check(t *testing.T) { _ = os.Getenv("OFFSETLAB_PYTHON") }`, []string{"check: Python (confluent-kafka)"}},
		{"java run", `package e2e
func tool(t *testing.T) { exec.Command("java", "-version") }`, []string{"tool: a JVM (Apache Kafka, its Java tools or Apicurio Registry)"}},
		{"javac looked up", `package e2e
func compile(t *testing.T) { exec.LookPath("javac") }`, []string{"compile: a JVM (Apache Kafka, its Java tools or Apicurio Registry)"}},
		{"a student named java", `package e2e
func join(t *testing.T) { h.join("java") }`, nil},
		{"a local cluster", `package e2e
func start(t *testing.T) { localkafka.Start(ctx, cfg) }`, []string{"start: a JVM (Apache Kafka, its Java tools or Apicurio Registry)"}},
		{"a registry on a JVM", `package e2e
func registry(t *testing.T) { apicurio.Start(ctx, cfg) }`, []string{"registry: a JVM (Apache Kafka, its Java tools or Apicurio Registry)"}},
		{"real Kafka running", `package e2e
func connect(t *testing.T) { os.Getenv("OFFSETLAB_KAFKA_BROKERS") }`, []string{"connect: a JVM (Apache Kafka, its Java tools or Apicurio Registry)"}},
		{"the wrong gate", `package e2e
func connect(t *testing.T) { testenv.Needs(t, testenv.Browser); os.Getenv("OFFSETLAB_PYTHON") }`, []string{"connect: Python (confluent-kafka)"}},
		{"nothing heavy", `package e2e
func plain(t *testing.T) { _ = "kafka" }`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad, _ := scanGates(t, map[string]string{"x_test.go": tt.src})
			var got []string
			for _, b := range bad {
				got = append(got, b.fn+": "+b.heavy.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestHeavySetupsAreGated: every test function in the repository that
// reaches a browser, a JVM or Python names its gate, so that
// `go test -short ./...` starts none of them.
func TestHeavySetupsAreGated(t *testing.T) {
	root := repoRoot(t)
	packages := map[string]map[string]string{} // dir → test file → source
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch rel, _ := filepath.Rel(root, path); {
			case strings.HasPrefix(d.Name(), ".") && path != root, rel == "third_party", rel == "node_modules", rel == filepath.Join("internal", "testenv"):
				return filepath.SkipDir // the scan's own cases above hold every mark
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		if packages[dir] == nil {
			packages[dir] = map[string]string{}
		}
		rel, _ := filepath.Rel(root, path)
		packages[dir][rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, dir := range slices.Sorted(func(yield func(string) bool) {
		for d := range packages {
			if !yield(d) {
				return
			}
		}
	}) {
		bad, gated := scanGates(t, packages[dir])
		total += gated
		for _, b := range bad {
			t.Errorf("%s: %s reaches %s without testenv.Needs(t, testenv.%s) (or testenv.May): go test -short must not start it", b.where, b.fn, b.heavy, gateName(b.heavy))
		}
	}
	// The e2e harness alone has gated helpers for all three setups.
	if total < 3 {
		t.Errorf("the scan found %d gated functions; it reads the wrong files", total)
	}
}

func gateName(h Heavy) string {
	for _, m := range heavyMarks {
		if m.heavy == h {
			return m.gate
		}
	}
	return "?"
}

// repoRoot is the directory holding go.mod, above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
