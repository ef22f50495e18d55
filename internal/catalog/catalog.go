// Package catalog is Offset Lab's one catalogue of sentences: every label,
// narration, lesson text and error the class reads, in English and Korean
// (in the polite haeyo style), one embedded JSON file per language (en.json, ko.json: key →
// sentence with {name} placeholders). Go code names sentences by key and
// never holds their words; the server renders English from here (the API's
// "error" field, the timeline's "text"), and the browser loads the same
// files (web serves FS) to show any of them in the viewer's language.
//
// A placeholder {name} is filled from Args["name"]. An argument named
// "<name>Key" holds another catalogue key: its sentence in the same language
// fills {name} (a "null value" or "binary value" label, say). A Korean
// particle that depends on the last syllable of a generated name is written
// {name|A/B}: form A after a final consonant, form B after a vowel (see
// endsInConsonant). An English noun whose form follows a count is written
// {count#one/other}: "{count} {count#partition/partitions}" (see Plural).
//
// The catalogue is parsed once, on first use, and never changes while the
// process runs. A missing key renders as "[key]"; TestCatalogue fails on
// any key that is used but missing, or present in one language only.
package catalog

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Lang is a language of the catalogue, as the lang attribute spells it.
type Lang string

// The catalogue's languages.
const (
	English Lang = "en"
	Korean  Lang = "ko"
)

// Languages lists the catalogue's languages, English (the default) first.
func Languages() []Lang { return []Lang{English, Korean} }

// Args are the values of a sentence's {placeholders}.
type Args map[string]string

// Message names a sentence of the catalogue and the values of its
// placeholders. It is how Go code says anything a person reads: errors,
// narration, lesson texts. String is its English.
type Message struct {
	Key  string `json:"key"`
	Args Args   `json:"args,omitempty"`
}

// M is the Message key with placeholders given as name, value pairs.
func M(key string, kv ...string) Message {
	return Message{Key: key, Args: Pairs(kv...)}
}

// Pairs turns name, value pairs into Args (nil for none).
func Pairs(kv ...string) Args {
	if len(kv) == 0 {
		return nil
	}
	a := make(Args, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		a[kv[i]] = kv[i+1]
	}
	return a
}

// String is the message in English.
func (m Message) String() string { return Text(English, m.Key, m.Args) }

// In is the message in lang.
func (m Message) In(lang Lang) string { return Text(lang, m.Key, m.Args) }

// IsZero reports whether m names no sentence.
func (m Message) IsZero() bool { return m.Key == "" }

//go:embed en.json ko.json
var files embed.FS

// FS holds the catalogue files, en.json and ko.json, for the browser.
func FS() fs.FS { return files }

// table is the parsed catalogue: language → key → sentence.
type table map[Lang]map[string]string

// loaded parses the embedded files once. They are part of the binary, so
// a parse error is a build mistake that TestCatalogue reports first.
var loaded = sync.OnceValue(func() table {
	t := table{}
	for _, lang := range Languages() {
		b, err := files.ReadFile(string(lang) + ".json")
		if err != nil {
			panic(fmt.Sprintf("catalog: %s.json: %v", lang, err))
		}
		m := map[string]string{}
		if err := json.Unmarshal(b, &m); err != nil {
			panic(fmt.Sprintf("catalog: %s.json: %v", lang, err))
		}
		t[lang] = m
	}
	return t
})

// Has reports whether key is in the English catalogue.
func Has(key string) bool {
	_, ok := loaded()[English][key]
	return ok
}

// Sentence is the raw sentence of key in lang, placeholders unfilled,
// falling back to English, and whether the catalogue has it.
func Sentence(lang Lang, key string) (string, bool) {
	t := loaded()
	if s, ok := t[lang][key]; ok {
		return s, true
	}
	s, ok := t[English][key]
	return s, ok
}

// Keys lists the keys of lang's catalogue, sorted.
func Keys(lang Lang) []string { return slices.Sorted(maps.Keys(loaded()[lang])) }

// Text is the sentence of key in lang with its placeholders filled from
// args. A key the catalogue lacks renders as "[key]".
func Text(lang Lang, key string, args Args) string {
	s, ok := Sentence(lang, key)
	if !ok {
		return "[" + key + "]"
	}
	return fill(lang, s, args)
}

// latinWord is a word of a structured value: "aborted" in "0:aborted 1:ABORT".
var latinWord = regexp.MustCompile(`[A-Za-z]+`)

// Words is v with each of its Latin words that the catalogue holds as
// prefix+word replaced by that sentence in lang, the others kept: in a
// check's structured value "0:aborted 1:ABORT 2:committed", with prefix
// "lesson.ui.value.", Korean replaces "aborted" and "committed" by the
// sentences of lesson.ui.value.aborted and lesson.ui.value.committed,
// while the marker names stay as Kafka prints them (the Korean result is
// in testdata/render_cases.json's words). A whole value the catalogue
// holds ("yes") is one word too.
func Words(lang Lang, prefix, v string) string {
	if s, ok := Sentence(lang, prefix+v); ok {
		return s
	}
	return latinWord.ReplaceAllStringFunc(v, func(w string) string {
		if s, ok := Sentence(lang, prefix+w); ok {
			return s
		}
		return w
	})
}

// placeholder matches {name}, {name|after consonant/after vowel} and
// {name#one/other}.
var placeholder = regexp.MustCompile(`\{(\w+)(?:\|([^/{}]*)/([^{}]*)|#([^/{}]*)/([^{}]*))?\}`)

// Placeholders lists the placeholder names of a sentence, sorted, each once.
func Placeholders(sentence string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(sentence, -1) {
		if m[0] == "{"+m[1]+"}" && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return out
}

func fill(lang Lang, s string, args Args) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		g := placeholder.FindStringSubmatch(m)
		name, afterConsonant, afterVowel := g[1], g[2], g[3]
		if strings.HasPrefix(m, "{"+name+"#") {
			v, ok := value(lang, name, args)
			if !ok {
				return m
			}
			return Plural(v, g[4], g[5])
		}
		if afterConsonant != "" || afterVowel != "" {
			v, ok := value(lang, name, args)
			if !ok {
				return m
			}
			return Particle(v, afterConsonant, afterVowel)
		}
		if v, ok := value(lang, name, args); ok {
			return v
		}
		return m
	})
}

// Plural is one when the count n (as shown: "1", "1,000") is one, and
// other for any other count — an English noun after a number:
// {count#partition/partitions}.
func Plural(n, one, other string) string {
	if strings.TrimSpace(n) == "1" {
		return one
	}
	return other
}

// value is the value of placeholder name: args[name], or the sentence whose
// key args[name+"Key"] holds.
func value(lang Lang, name string, args Args) (string, bool) {
	if v, ok := args[name]; ok {
		return v, true
	}
	if k, ok := args[name+"Key"]; ok {
		return Text(lang, k, args), true
	}
	return "", false
}

// Particle is the form of a Korean particle that follows v: afterConsonant
// when a Korean reader says v with a final consonant (batchim),
// afterVowel otherwise — the pairs i/ga, eul/reul, eun/neun, gwa/wa,
// ieyo/yeyo of ko.json. The pair euro/ro takes ro after a final rieul as
// well as after a vowel (catalog_test.go shows each in Hangul).
func Particle(v, afterConsonant, afterVowel string) string {
	if afterConsonant == particleEuro && afterVowel == particleRo && endsInRieul(v) {
		return afterVowel
	}
	if endsInConsonant(v) {
		return afterConsonant
	}
	return afterVowel
}

// The particle pair euro/ro, spelled in Unicode escapes: Korean text lives
// in ko.json, not in Go source.
const (
	particleEuro = "\uc73c\ub85c"
	particleRo   = "\ub85c"
)

// endsInRieul reports whether s, read aloud in Korean, ends in rieul (the
// final consonant l): see finalSound.
func endsInRieul(s string) bool { return finalSound(s) == endsRieul }

// endsInConsonant reports whether a Korean reader pronounces s with a final
// consonant (batchim), which decides the particles that have one form after
// a consonant and another after a vowel: see finalSound for how Latin
// names and digits are read.
func endsInConsonant(s string) bool { return finalSound(s) != endsVowel }
