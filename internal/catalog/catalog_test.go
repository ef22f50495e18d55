package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// keyUses finds the catalogue keys the code uses: data-i18n="key",
// data-i18n-attr="attr:key;...", @translated("key"),
// @translatedSpace("key"), tr("key") and
// trf("key", ...) in templ/Go, and t('key'), tr(node, 'key'),
// trAttr(node, 'attr', 'key'), span('key'), flash('key') and
// err.code = 'key' in JavaScript, catalog.M("key", …) in Go and templ
// (the section pages' messages), and any
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

// renderCases is testdata/render_cases.json: the one table of how
// sentences are filled in, which web/static's node test (catalog.test.js)
// reads too, so that the page's catalog.js and this package agree.
type renderCases struct {
	Particles []struct {
		Value, AfterConsonant, AfterVowel, Want string
	}
	Sentences []struct {
		Lang     Lang
		Sentence string
		Args     Args
		Want     string
	}
	Words []struct {
		Lang                Lang
		Prefix, Value, Want string
	}
	Keys []struct {
		Lang Lang
		Key  string
		Args Args
		Want string
	}
}

func readRenderCases(t *testing.T) renderCases {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "render_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c renderCases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("testdata/render_cases.json: %v", err)
	}
	if len(c.Particles) == 0 || len(c.Sentences) == 0 || len(c.Keys) == 0 || len(c.Words) == 0 {
		t.Fatal("testdata/render_cases.json has an empty section")
	}
	return c
}

// TestRenderCases: the particle after a generated name follows how a
// Korean reader says its last character; placeholders are filled, a
// nameKey argument fills {name} with that sentence, and a placeholder
// without a value stays; catalogue keys render in each language.
func TestRenderCases(t *testing.T) {
	t.Parallel()
	c := readRenderCases(t)
	for _, tt := range c.Particles {
		if got := Particle(tt.Value, tt.AfterConsonant, tt.AfterVowel); got != tt.Want {
			t.Errorf("Particle(%q, %q, %q) = %q, want %q", tt.Value, tt.AfterConsonant, tt.AfterVowel, got, tt.Want)
		}
	}
	for _, tt := range c.Sentences {
		if got := fill(tt.Lang, tt.Sentence, tt.Args); got != tt.Want {
			t.Errorf("fill(%s, %q, %v) = %q, want %q", tt.Lang, tt.Sentence, tt.Args, got, tt.Want)
		}
	}
	for _, tt := range c.Words {
		if got := Words(tt.Lang, tt.Prefix, tt.Value); got != tt.Want {
			t.Errorf("Words(%s, %q, %q) = %q, want %q", tt.Lang, tt.Prefix, tt.Value, got, tt.Want)
		}
	}
	for _, tt := range c.Keys {
		if got := Text(tt.Lang, tt.Key, tt.Args); got != tt.Want {
			t.Errorf("Text(%s, %q, %v) = %q, want %q", tt.Lang, tt.Key, tt.Args, got, tt.Want)
		}
	}
}

// latinInKorean are the Korean values that rightly hold no Hangul: what
// Kafka itself prints (the marker names, read_committed's RC/RU column
// heads, in the log and in the seeds' tables), symbols, and punctuation
// the page joins sentences with. Anything else without Hangul is a value
// left in English.
var latinInKorean = map[string]string{
	"seed.sep":               "a separator between sentences",
	"count.end":              "a full stop",
	"narration.lesson":       "a whole sentence filled in by the caller, in its own language",
	"timeline.commit":        "the marker's name, as kafka-dump-log.sh prints it",
	"timeline.abort":         "the marker's name, as kafka-dump-log.sh prints it",
	"table.out.commitMarker": "the marker's name, as kafka-dump-log.sh prints it",
	"table.out.abortMarker":  "the marker's name, as kafka-dump-log.sh prints it",
	"strip.commitMarkers":    "the marker's name and a count",
	"strip.abortMarkers":     "the marker's name and a count",
	"table.col.rc":           "a column head: read_committed, as the API and the lanes name it",
	"table.col.ru":           "a column head: read_uncommitted, as the API and the lanes name it",
	"lane.rcLabel":           "a lane's label: read_committed, as the table's column and the counts above the log name it",
	"lane.share.label":       "a share lane's label: share group n, beside RC and RU",
	"lane.ruLabel":           "a lane's label: read_uncommitted, as the table's column and the counts above the log name it",
	"cell.sameAs":            "a symbol and an offset",
	"cell.retryOf":           "a symbol and an offset",
	// The pointers' names as the log's flags print them, with their offsets.
	"lesson.ui.answer.logPointers": "the pointers' names, as the flags show them, and their offsets",
}

// TestKoreanIsKorean: every Korean value holds Hangul, unless it is on
// latinInKorean — so a sentence copied from en.json and never translated
// fails. The list itself names only keys that exist and hold no Hangul.
func TestKoreanIsKorean(t *testing.T) {
	ko := loaded()[Korean]
	for k, v := range ko {
		_, latin := latinInKorean[k]
		switch hangul := strings.ContainsFunc(v, func(r rune) bool { return unicode.Is(unicode.Hangul, r) }); {
		case !hangul && !latin:
			t.Errorf("ko.json %q = %q holds no Hangul: translate it, or add it to latinInKorean with the reason", k, v)
		case hangul && latin:
			t.Errorf("ko.json %q = %q holds Hangul; take it off latinInKorean", k, v)
		}
	}
	for k := range latinInKorean {
		if _, ok := ko[k]; !ok {
			t.Errorf("latinInKorean names %q, which ko.json does not have", k)
		}
	}
}
