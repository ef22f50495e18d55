package catalog

import (
	"strings"
	"unicode/utf8"
)

// ending is how a value, read aloud in Korean, ends: the sound that picks
// between a particle's two forms. TestFinalSound shows each rule with the
// Korean spelling a reader says.
type ending int

const (
	// endsVowel: no final consonant (batchim): "order-service", whose
	// loanword spelling ends in a vowel, and the digits 2, 4, 5, 9.
	endsVowel ending = iota
	// endsRieul: the final consonant rieul (an l sound): "order-total",
	// and the digits 1, 7, 8.
	endsRieul
	// endsOtherConsonant: any other final consonant: "app", and the
	// digits 0, 3, 6.
	endsOtherConsonant
)

// trailingMarks are the characters a reader does not say at the end of a
// value: spaces, full stops, commas, quotes, a closing square bracket (a
// closing parenthesis ends an aside, see withoutTrailingAside).
const trailingMarks = " .,'\"’”]"

// finalSound is how s ends when a Korean reader says it. Hangul is read
// from its last syllable. A parenthesis at the end is not said
// ("transaction.timeout.ms(60s)" is read up to "ms"). Digits are read one
// by one, as the number's last word is (0 yeong, 1 il, 2 i, 3 sam, …:
// 10 sip, 100 baek and 1000 cheon all end in a consonant, as 0 does).
// Latin letters are read as the word they spell when they spell one
// ("app" aep, "pending" pending, "ABORT" eoboteu, "COMMIT" keomit),
// letter by letter when they do not (a single letter, no vowel, three
// capitals or fewer, or letters right after a digit: "tx" tiekseu, "LSO",
// "HW", "9f"). Of camelCase ("EndTxn") only the last part counts.
func finalSound(s string) ending {
	s = withoutTrailingAside(s)
	last, size := utf8.DecodeLastRuneInString(s)
	switch {
	case size == 0:
		return endsVowel
	case last >= 0xAC00 && last <= 0xD7A3:
		switch (last - 0xAC00) % 28 {
		case 0:
			return endsVowel
		case 8:
			return endsRieul
		}
		return endsOtherConsonant
	case last >= '0' && last <= '9':
		return digitSound(byte(last))
	case !isLatinLetter(byte(last)):
		return endsVowel
	}
	start := len(s)
	for start > 0 && isLatinLetter(s[start-1]) {
		start--
	}
	word := lastCamelPart(s[start:])
	if len(word) == 1 || !strings.ContainsAny(strings.ToLower(word), "aeiouy") ||
		(len(word) <= 3 && strings.ToUpper(word) == word) ||
		(start > 0 && s[start-1] >= '0' && s[start-1] <= '9') {
		return letterSound(word[len(word)-1])
	}
	return wordSound(strings.ToLower(word))
}

// withoutTrailingAside is s without the marks and the parenthesised
// aside at its end that a reader does not say: "ms(60s)" is read "ms",
// "init_transactions()" "transactions".
func withoutTrailingAside(s string) string {
	for {
		s = strings.TrimRight(s, trailingMarks)
		if !strings.HasSuffix(s, ")") {
			return s
		}
		s = strings.TrimSuffix(s, ")")
		if open := strings.LastIndexByte(s, '('); open >= 0 && strings.TrimRight(s[:open], trailingMarks) != "" {
			s = s[:open]
		}
	}
}

func isLatinLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// lastCamelPart is the last part of a camelCase word: "Txn" of "EndTxn",
// "Commit" of "CompleteCommit"; an all-capital word is one part.
func lastCamelPart(w string) string {
	for i := len(w) - 1; i > 0; i-- {
		if w[i] >= 'A' && w[i] <= 'Z' && w[i-1] >= 'a' && w[i-1] <= 'z' {
			return w[i:]
		}
	}
	return w
}

// digitSound is how a digit ends when said: yeong, il, i, sam, sa, o,
// yuk, chil, pal, gu.
func digitSound(d byte) ending {
	switch d {
	case '1', '7', '8':
		return endsRieul
	case '0', '3', '6':
		return endsOtherConsonant
	}
	return endsVowel
}

// letterSound is how a Latin letter's Korean name ends: el and al (l, r)
// in rieul, em and en (m, n) in another consonant, the rest (ei, bi, ssi,
// …, ekseu, wai, ji) in a vowel.
func letterSound(c byte) ending {
	switch c | 0x20 {
	case 'l', 'r':
		return endsRieul
	case 'm', 'n':
		return endsOtherConsonant
	}
	return endsVowel
}

func isVowelLetter(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }

// wordSound is how a lower-case English word ends in its Korean loanword
// spelling, by the rules of that spelling: a final m, n or ng stays a
// final consonant ("name", "pending"); a final l or -le ends in rieul
// ("total", "table"); a final p, b, t, k or c after a short vowel becomes
// a final consonant ("app", "web", "commit", "block", "topic"), while after
// a long vowel or another consonant it is said with a vowel after it
// ("abort", "speak", "dump"); a final r, s, d, f, x, y, w or h, and a
// silent e after other consonants, end in a vowel ("order", "service",
// "fade", "empty"). TestFinalSound lists each word with its spelling.
func wordSound(w string) ending {
	n := len(w)
	last, prev := w[n-1], w[n-2]
	shortVowelBefore := isVowelLetter(prev) && (n < 3 || !isVowelLetter(w[n-3]))
	switch last {
	case 'm', 'n':
		return endsOtherConsonant
	case 'l':
		return endsRieul
	case 'g':
		if prev == 'n' {
			return endsOtherConsonant
		}
	case 'p', 'b':
		if isVowelLetter(prev) || prev == last {
			return endsOtherConsonant
		}
	case 't':
		if shortVowelBefore || prev == 't' {
			return endsOtherConsonant
		}
	case 'k':
		if shortVowelBefore || prev == 'c' {
			return endsOtherConsonant
		}
	case 'c':
		if isVowelLetter(prev) {
			return endsOtherConsonant
		}
	case 'e':
		switch prev {
		case 'm', 'n':
			return endsOtherConsonant
		case 'l':
			return endsRieul
		}
	}
	return endsVowel
}
