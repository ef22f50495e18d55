package catalog

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// keyUses finds the catalogue keys the code uses: data-i18n="key",
// data-i18n-attr="attr:key;...", @T("key"), @TS("key"), tr("key") and
// trf("key", ...) in templ/Go, and t('key'), tr(node, 'key'),
// trAttr(node, 'attr', 'key'), span('key'), flash('key') and
// err.code = 'key' in JavaScript, catalog.M("key", …) in Go and templ
// (the explorer pages' messages), and any
// quoted "narration.…", "error.…", "processor.log.…", "brokers.…" or
// "lesson.narration.…" key: the sentences Go code names in events, errors
// (internal/problem) and the processor's log.
var keyUses = []*regexp.Regexp{
	regexp.MustCompile(`data-i18n="([^"]+)"`),
	regexp.MustCompile(`@translated(?:Space)?\("([^"]+)"\)`),
	regexp.MustCompile(`\btrf?\("([^"]+)"`),
	regexp.MustCompile(`\bt\(\s*'([^']+)'`),
	regexp.MustCompile(`\btr\([^,()]+(?:\([^()]*\))?,\s*'([^']+)'`),
	regexp.MustCompile(`\btrAttr\([^,]+,\s*'[^']+',\s*'([^']+)'`),
	regexp.MustCompile(`\bspan\(\s*'([^']+)'`),
	regexp.MustCompile(`\bcatalog\.M\("([^"]+)"`),
	regexp.MustCompile(`\bflash\(\s*'([^']+)'`),
	regexp.MustCompile(`\.code = '([^']+)'`),
	regexp.MustCompile(`["'](narration\.[\w.]+)["']`),
	regexp.MustCompile(`["'](error\.[\w.]+)["']`),
	regexp.MustCompile(`["'](processor\.log\.[\w.]+)["']`),
	regexp.MustCompile(`["'](brokers\.hint\.[\w.]+)["']`),
	regexp.MustCompile(`["'](lesson\.narration\.[\w.]+)["']`),
}

var attrUse = regexp.MustCompile(`data-i18n-attr="([^"]+)"`)

// TestCatalogue fails when a key exists in one language but not the
// other, is empty, has placeholders that differ between languages, or is
// used by Go code, a template or a browser module and missing from the
// catalogue.
func TestCatalogue(t *testing.T) {
	cat := loaded()
	en, ko := cat[English], cat[Korean]
	if len(en) == 0 {
		t.Fatal("empty English catalogue")
	}
	for _, pair := range [][2]Lang{{English, Korean}, {Korean, English}} {
		for k, v := range cat[pair[0]] {
			other, ok := cat[pair[1]][k]
			if !ok {
				t.Errorf("key %q is in %s.json but not in %s.json", k, pair[0], pair[1])
				continue
			}
			if strings.TrimSpace(v) == "" {
				t.Errorf("key %q is empty in %s.json", k, pair[0])
			}
			a, b := Placeholders(v), Placeholders(other)
			if strings.Join(a, ",") != strings.Join(b, ",") {
				t.Errorf("key %q: placeholders %v in %s, %v in %s", k, a, pair[0], b, pair[1])
			}
		}
	}

	var files []string
	for _, glob := range []string{"../../web/*.go", "../../web/*/*.templ", "../../web/*/*.go", "../../web/static/*.js", "../../web/static/*/*.js", "../*/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
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
				t.Errorf("%s uses key %q, missing from internal/catalog/en.json", f, k)
			}
			if _, ok := ko[k]; !ok {
				t.Errorf("%s uses key %q, missing from internal/catalog/ko.json", f, k)
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

// TestParticle: the particle after a generated name follows how a Korean
// reader says its last character.
func TestParticle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value, consonant, vowel, want string
	}{
		{"orders-b9cd86", "과", "와", "과"}, // 육
		{"order-totals-tx-b9cd86", "이에요", "예요", "이에요"},
		{"totals-tx-ab12", "이", "가", "가"}, // 이
		{"payments-app-9f", "을", "를", "를"},
		{"payments-app-01", "으로", "로", "로"}, // 일: ㄹ
		{"payments-app-03", "으로", "로", "으로"},
		{"order-service", "으로", "로", "로"},
		{"서울", "으로", "로", "로"},
		{"부산", "으로", "로", "으로"},
		{"'O-2 total=42000'", "이", "가", "이"},
		{"tx-m", "은", "는", "은"},
	}
	for _, tt := range tests {
		if got := Particle(tt.value, tt.consonant, tt.vowel); got != tt.want {
			t.Errorf("Particle(%q, %q, %q) = %q, want %q", tt.value, tt.consonant, tt.vowel, got, tt.want)
		}
	}
	if got := Text(Korean, "error.unknownTopic", Args{"topic": "orders-b9cd86"}); got != `토픽 "orders-b9cd86"이 없어요.` {
		t.Errorf("error.unknownTopic in Korean = %q", got)
	}
}
