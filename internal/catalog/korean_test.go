package catalog

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// glossary is glossary.json: the one Korean word for each Kafka term and
// what Korean text keeps in Latin letters.
type glossary struct {
	Terms []struct {
		En  string   `json:"en"`
		Ko  string   `json:"ko"`
		Not []string `json:"not"`
	} `json:"terms"`
	Latin []struct {
		Term string `json:"term"`
		Why  string `json:"why"`
	} `json:"latin"`
}

func readGlossary(t *testing.T) glossary {
	t.Helper()
	b, err := os.ReadFile("glossary.json")
	if err != nil {
		t.Fatal(err)
	}
	var g glossary
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("glossary.json: %v", err)
	}
	if len(g.Terms) == 0 || len(g.Latin) == 0 {
		t.Fatal("glossary.json has an empty section")
	}
	return g
}

var (
	anyPlaceholder = regexp.MustCompile(`\{[^{}]*\}`)
	// quotedLatin is a quoted English message or value: "Broker: Not
	// enough in-sync replicas", 'P-2 paid by app-1', “seed 000 준비” is not.
	quotedLatin = regexp.MustCompile(`"[^"\p{Hangul}]*"|'[^'\p{Hangul}]*'|“[^”\p{Hangul}]*”`)
	// latinGloss is a Latin gloss in parentheses after the Korean word:
	// 중단(abort), 랙(lag), ISR(In-Sync Replicas).
	latinGloss = regexp.MustCompile(`\([^()\p{Hangul}]*[A-Za-z][^()\p{Hangul}]*\)`)
	// shellCommand is a command line: kafka-transactions.sh abort.
	shellCommand = regexp.MustCompile(`\S+\.sh(?: [a-z-]+)?`)
)

// spokenKorean is a ko.json value without what is not Korean prose: its
// placeholders, quoted English, Latin glosses and the product's name.
func spokenKorean(v string) string {
	v = anyPlaceholder.ReplaceAllString(v, " ")
	v = quotedLatin.ReplaceAllString(v, " ")
	v = latinGloss.ReplaceAllString(v, " ")
	v = shellCommand.ReplaceAllString(v, " ")
	return strings.ReplaceAll(v, "Offset Lab", " ")
}

// usesVariant reports whether text holds the variant: a Latin variant as a
// whole word (not part of a config name such as auto.offset.reset or an
// error code such as OFFSET_OUT_OF_RANGE), a Hangul one anywhere.
func usesVariant(text, variant string, word *regexp.Regexp) bool {
	if strings.ContainsFunc(variant, func(r rune) bool { return unicode.Is(unicode.Hangul, r) }) {
		return strings.Contains(text, variant)
	}
	return word.MatchString(text)
}

// wholeWord matches a Latin variant as a word of its own.
func wholeWord(variant string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^\w.\-/=])` + regexp.QuoteMeta(variant) + `($|[^\w.\-/=(])`)
}

// TestGlossary: every ko.json value calls each Kafka term by the one
// Korean word glossary.json gives it — 오프셋, never offset; 실습, never
// 레슨 — and each of those words is in use.
func TestGlossary(t *testing.T) {
	t.Parallel()
	g := readGlossary(t)
	ko := loaded()[Korean]
	spoken := make(map[string]string, len(ko))
	for k, v := range ko {
		spoken[k] = spokenKorean(v)
	}
	for _, term := range g.Terms {
		words := make([]*regexp.Regexp, len(term.Not))
		for i, variant := range term.Not {
			words[i] = wholeWord(variant)
		}
		used := false
		for _, k := range Keys(Korean) {
			text := spoken[k]
			used = used || strings.Contains(ko[k], term.Ko)
			for i, variant := range term.Not {
				if usesVariant(text, variant, words[i]) {
					t.Errorf("ko.json %q says %q for %q: write %q (glossary.json)\n\t%s", k, variant, term.En, term.Ko, ko[k])
				}
			}
		}
		if !used {
			t.Errorf("glossary.json gives %q for %q, which no ko.json value uses", term.Ko, term.En)
		}
	}
	for _, l := range g.Latin {
		if l.Why == "" {
			t.Errorf("glossary.json keeps %q in Latin without saying why", l.Term)
		}
	}
}

// particlePairs are the Korean particles with a form after a final
// consonant and one after a vowel, longest first.
var particlePairs = [][2]string{
	{"이에요", "예요"}, {"으로", "로"}, {"이", "가"}, {"은", "는"}, {"을", "를"}, {"과", "와"},
}

// latinThenParticle is a Latin or digit ending (with its closing marks)
// followed by a particle that ends the word.
var latinThenParticle = regexp.MustCompile(`([A-Za-z0-9](?:[^\p{Hangul}{}]*[^\s\p{Hangul}{}])?)(이에요|예요|으로|이|가|은|는|을|를|과|와|로)(?:[^\p{Hangul}]|$)`)

// asidePlaceholders are the sentences whose placeholder before a fixed
// particle fills in an aside, which the particle does not follow.
var asidePlaceholders = map[string]string{
	"producer.value": "{n} is shown as it is, the token the produce form counts up",
	"lso.held":       "{who} is empty or an aside in parentheses (lso.who); the particle follows 트랜잭션",
}

// TestParticlesAfterLatin: in ko.json, a particle written right after a
// Latin name or a number takes the form a Korean reader says it with
// (EndTxn이, LSO를, order-totals-app은), and a particle after a
// placeholder is chosen for its value ({topic}{topic|이/가}), never
// written out as both forms (이(가)) or fixed after a value it does not know.
func TestParticlesAfterLatin(t *testing.T) {
	t.Parallel()
	ko := loaded()[Korean]
	both := regexp.MustCompile(`(이\(가\)|은\(는\)|을\(를\)|과\(와\)|와\(과\)|\(으\)로)`)
	fixedAfterPlaceholder := regexp.MustCompile(`\{\w+\}(이에요|예요|으로|이|가|은|는|을|를|과|와|로)(?:[^\p{Hangul}]|$)`)
	for _, k := range Keys(Korean) {
		v := ko[k]
		if m := both.FindString(v); m != "" {
			t.Errorf("ko.json %q writes both forms %q: use {name|A/B}\n\t%s", k, m, v)
		}
		if _, aside := asidePlaceholders[k]; !aside {
			for _, m := range fixedAfterPlaceholder.FindAllString(v, -1) {
				t.Errorf("ko.json %q fixes a particle after a placeholder, %q: use {name|A/B}\n\t%s", k, m, v)
			}
		}
		prose := anyPlaceholder.ReplaceAllString(v, "{}")
		for _, m := range latinThenParticle.FindAllStringSubmatchIndex(prose, -1) {
			// The whole text before the particle is what is read: an
			// aside such as 다음(Next)을 is read from the word before it.
			value, got := prose[:m[3]], prose[m[4]:m[5]]
			if !strings.ContainsAny(withoutTrailingAside(prose[m[2]:m[3]]), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") {
				continue // a mark read by its name: '.'과
			}
			for _, pair := range particlePairs {
				if got != pair[0] && got != pair[1] {
					continue
				}
				if want := Particle(value, pair[0], pair[1]); want != got {
					t.Errorf("ko.json %q: %q%s, but Korean reads it ending in a %s: write %s\n\t%s", k, prose[m[2]:m[3]], got, map[bool]string{true: "consonant", false: "vowel"}[endsInConsonant(value)], want, v)
				}
				break
			}
		}
	}
}
