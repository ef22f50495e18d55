package web

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// keyUses finds the catalogue keys the templates and browser modules use:
// data-i18n="key", data-i18n-attr="attr:key;...", @T("key"), @TS("key"), tr("key") and
// trf("key", ...) in templ/Go, and t('key'), tr(node, 'key'),
// trAttr(node, 'attr', 'key') and span('key') in JavaScript, and any
// quoted "narration.…" key: the timeline's sentences, which the server
// names in live.Event.Key (internal/live, web/narration.go, the lesson
// runner) as string literals, and any quoted "error.…" key: the API's
// error sentences, which the server names in its error answers' "code"
// (internal/producer, internal/cluster and web; see internal/uikey).
var keyUses = []*regexp.Regexp{
	regexp.MustCompile(`data-i18n="([^"]+)"`),
	regexp.MustCompile(`@TS?\("([^"]+)"\)`),
	regexp.MustCompile(`\btrf?\("([^"]+)"`),
	regexp.MustCompile(`\bt\(\s*'([^']+)'`),
	regexp.MustCompile(`\btr\([^,()]+(?:\([^()]*\))?,\s*'([^']+)'`),
	regexp.MustCompile(`\btrAttr\([^,]+,\s*'[^']+',\s*'([^']+)'`),
	regexp.MustCompile(`\bspan\(\s*'([^']+)'`),
	regexp.MustCompile(`["'](narration\.[\w.]+)["']`),
	regexp.MustCompile(`["'](error\.[\w.]+)["']`),
	regexp.MustCompile(`["'](processor\.log\.[\w.]+)["']`),
}

var attrUse = regexp.MustCompile(`data-i18n-attr="([^"]+)"`)

// TestUICatalogue fails when a key of the UI catalogue exists in one
// language but not the other, is empty, has placeholders that differ
// between languages, or is used by a template or browser module and
// missing from the catalogue.
func TestUICatalogue(t *testing.T) {
	cat := uiCatalogue()
	en, ko := cat["en"], cat["ko"]
	if len(en) == 0 {
		t.Fatal("empty English catalogue")
	}
	for _, pair := range [][2]string{{"en", "ko"}, {"ko", "en"}} {
		for k, v := range cat[pair[0]] {
			other, ok := cat[pair[1]][k]
			if !ok {
				t.Errorf("key %q is in %s.json but not in %s.json", k, pair[0], pair[1])
				continue
			}
			if strings.TrimSpace(v) == "" {
				t.Errorf("key %q is empty in %s.json", k, pair[0])
			}
			a, b := placeholder.FindAllString(v, -1), placeholder.FindAllString(other, -1)
			sort.Strings(a)
			sort.Strings(b)
			if strings.Join(a, ",") != strings.Join(b, ",") {
				t.Errorf("key %q: placeholders %v in %s, %v in %s", k, a, pair[0], b, pair[1])
			}
		}
	}

	var files []string
	for _, glob := range []string{"*.templ", "*.go", "static/*.js", "../internal/live/*.go", "../internal/lessons/runner.go", "../internal/lessons/brokers.go", "../internal/producer/*.go", "../internal/cluster/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			// The lessons panel has its own catalogue (internal/lessons,
			// TestCatalogue there); its files use that one's keys.
			base := filepath.Base(f)
			if strings.HasPrefix(base, "lessons") {
				continue
			}
			if !strings.HasSuffix(f, "_templ.go") && !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
	}
	used := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		var keys []string
		for _, re := range keyUses {
			for _, m := range re.FindAllStringSubmatch(src, -1) {
				keys = append(keys, m[1])
			}
		}
		for _, m := range attrUse.FindAllStringSubmatch(src, -1) {
			for _, spec := range strings.Split(m[1], ";") {
				if _, key, ok := strings.Cut(spec, ":"); ok {
					keys = append(keys, strings.TrimSpace(key))
				}
			}
		}
		for _, k := range keys {
			used++
			if strings.HasSuffix(k, ".") { // a prefix, completed at run time ('txn.status.' + step)
				if !hasPrefix(en, k) || !hasPrefix(ko, k) {
					t.Errorf("%s uses keys %q…, none in one of the catalogues", f, k)
				}
				continue
			}
			if _, ok := en[k]; !ok {
				t.Errorf("%s uses key %q, missing from web/static/i18n/en.json", f, k)
			}
			if _, ok := ko[k]; !ok {
				t.Errorf("%s uses key %q, missing from web/static/i18n/ko.json", f, k)
			}
		}
	}
	if used < 100 {
		t.Errorf("found only %d key uses in the templates and modules; is the scan broken?", used)
	}
}

func hasPrefix(m map[string]string, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}
