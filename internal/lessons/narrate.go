package lessons

import (
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/live"
)

// A run narrates each step on the timeline: what it is about to do, then
// its checks (or why it waits or failed). The sentences are the
// catalogue's "lesson.narration.*", rendered in both languages with the
// run's texts (a step's title and narration are themselves catalogue
// sentences); the event carries both under the catalogue key
// "narration.lesson" ({text} is the English, args "en" and "ko" each
// language), and the page shows the one of its language.

func (rn *run) narrateStart(icon string, i int, title, say Text) {
	rn.narrate(icon, rn.stepTopic(i), 0, func(lang catalog.Lang) string {
		return catalog.Text(lang, "lesson.narration.step", rn.stepArgs(i, "title", pick(title, lang), "say", pick(say, lang)))
	})
}

func (rn *run) narrateWaits(i int, why Text) {
	rn.narrate(live.EventInfo, rn.stepTopic(i), 0, func(lang catalog.Lang) string {
		return catalog.Text(lang, "lesson.narration.waits", rn.stepArgs(i, "why", pick(why, lang)))
	})
}

func (rn *run) narrateFailed(i int, why Text) {
	rn.narrate(live.EventWarning, rn.stepTopic(i), 0, func(lang catalog.Lang) string {
		return catalog.Text(lang, "lesson.narration.failed", rn.stepArgs(i, "why", pick(why, lang)))
	})
}

// narrateChecks lists the step's checks: "Copies of O-2 total=42000:
// expected 1 — observed 1 ✓".
func (rn *run) narrateChecks(i int, checks []Check) {
	if len(checks) == 0 {
		return
	}
	kind := live.EventInfo
	for _, c := range checks {
		if !c.OK {
			kind = live.EventWarning
		}
	}
	rn.narrate(kind, rn.stepTopic(i), 0, func(lang catalog.Lang) string {
		lines := make([]string, len(checks))
		for j, c := range checks {
			lines[j] = catalog.Text(lang, "lesson.narration.check", catalog.Args{
				"text": pick(c.Text, lang), "expected": value(lang, c.Fact, c.Expected), "observed": value(lang, c.Fact, c.Observed), "mark": mark(c.OK),
			})
		}
		return catalog.Text(lang, "lesson.narration.checked", rn.stepArgs(i, "checks", strings.Join(lines, "; ")))
	})
}

// narrate tells the timeline a sentence rendered in each language.
func (rn *run) narrate(kind, topic string, partition int32, render func(catalog.Lang) string) {
	en, ko := render(catalog.English), render(catalog.Korean)
	rn.runner.lab.Narrate(kind, topic, partition, catalog.M("narration.lesson", "text", en, "en", en, "ko", ko))
}

// stepArgs are the placeholders every step sentence has, plus kv.
func (rn *run) stepArgs(i int, kv ...string) catalog.Args {
	args := catalog.Pairs(kv...)
	if args == nil {
		args = catalog.Args{}
	}
	args["lesson"], args["n"], args["total"] = rn.lesson.ID, strconv.Itoa(i+1), strconv.Itoa(len(rn.lesson.Steps))
	return args
}

// stepTopic is the run's name of the first topic step i concerns, or "".
func (rn *run) stepTopic(i int) string {
	if topics := rn.lesson.Steps[i].Do.TopicNames(); len(topics) > 0 && topics[0] != "" {
		return rn.name(topics[0])
	}
	return ""
}

func pick(t Text, lang catalog.Lang) string {
	if lang == catalog.Korean {
		return t.Ko
	}
	return t.En
}

// value is an observed or expected value as the panel shows it: yes, no,
// none… in the viewer's language; numbers and names as they are.
func value(lang catalog.Lang, fact Fact, v string) string {
	if wordedFacts[fact] {
		return catalog.Words(lang, "lesson.ui.value.", v)
	}
	if s, ok := catalog.Sentence(lang, "lesson.ui.value."+v); ok {
		return s
	}
	return v
}

// wordedFacts are the facts whose values are made of words the catalogue
// translates ("0:aborted 1:ABORT", "1-3 compacted"): the others hold
// record values, names and numbers, shown as they are unless the whole
// value is a word ("yes"). lessons.js keeps the same list.
var wordedFacts = map[Fact]bool{FactShape: true, FactGaps: true, FactEnded: true, FactMarkers: true}

func mark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}
