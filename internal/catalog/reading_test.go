package catalog

import "testing"

// TestFinalSound: how a value ends when a Korean reader says it, the
// sound that picks a particle's form. Each Latin word is listed with the
// loanword spelling it is read as, and that spelling must end in the same
// sound, so the table shows the rule of wordSound and digitSound and
// fails if either drifts from how Korean is spelt.
func TestFinalSound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		// said is how a Korean reader spells the value's last word; ""
		// where the value is read letter by letter or as a number.
		said string
		want ending
	}{
		// A final m, n or ng stays a final consonant.
		{"name", "네임", endsOtherConsonant},
		{"P-1 pending", "펜딩", endsOtherConsonant},
		// A final l or -le ends in rieul.
		{"order-total", "토털", endsRieul},
		{"table", "테이블", endsRieul},
		// A final p, b, t, k or c after a short vowel is a final consonant…
		{"app", "앱", endsOtherConsonant},
		{"order-totals-app", "앱", endsOtherConsonant},
		{"web", "웹", endsOtherConsonant},
		{"commit", "커밋", endsOtherConsonant},
		{"block", "블록", endsOtherConsonant},
		{"topic", "토픽", endsOtherConsonant},
		// … after a long vowel or another consonant it is said with a vowel.
		{"ABORT", "어보트", endsVowel},
		{"speak", "스피크", endsVowel},
		{"dump", "덤프", endsVowel},
		// r, s, d, f, x, y, w, h and a silent e after other consonants end in a vowel.
		{"order", "오더", endsVowel},
		{"order-service", "서비스", endsVowel},
		{"fade", "페이드", endsVowel},
		{"empty", "엠티", endsVowel},
		// Of camelCase only the last part counts; a parenthesis is not said.
		{"EndTxn", "", endsOtherConsonant},
		{"transaction.timeout.ms(60s)", "", endsVowel},
		// Letter by letter: el and al (l, r) in rieul, em and en in another consonant.
		{"HW", "", endsVowel},
		{"LSO", "", endsVowel},
		{"tx", "", endsVowel},
		{"9f", "", endsVowel},
		{"xml", "", endsRieul},
		// Digits as the number's last word: yeong, il, i, sam, sa, o, yuk, chil, pal, gu.
		{"0", "영", endsOtherConsonant},
		{"1", "일", endsRieul},
		{"2", "이", endsVowel},
		{"3", "삼", endsOtherConsonant},
		{"4", "사", endsVowel},
		{"5", "오", endsVowel},
		{"6", "육", endsOtherConsonant},
		{"7", "칠", endsRieul},
		{"8", "팔", endsRieul},
		{"9", "구", endsVowel},
	}
	name := map[ending]string{endsVowel: "a vowel", endsRieul: "rieul", endsOtherConsonant: "another consonant"}
	for _, tt := range tests {
		if got := finalSound(tt.value); got != tt.want {
			t.Errorf("finalSound(%q) ends in %s, want %s", tt.value, name[got], name[tt.want])
		}
		if tt.said != "" {
			if got := finalSound(tt.said); got != tt.want {
				t.Errorf("%q is said %q, which ends in %s, but the table wants %s", tt.value, tt.said, name[got], name[tt.want])
			}
		}
	}
}
