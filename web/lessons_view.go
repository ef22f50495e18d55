package web

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/lessons"
)

// lessonLanguages are the languages of the lessons panel, in switch order.
var lessonLanguages = []struct{ Code, Label string }{
	{lessons.English, "EN"},
	{lessons.Korean, "한국어"},
}

// lessonOptions are the lessons panel's picker entries for a broker mode.
func lessonOptions(mode string) []lessons.Summary {
	return lessons.Summarize(lessons.Builtin(), cluster.Mode(mode))
}

// lessonLabel is a label of the lessons panel in every language.
func lessonLabel(id string) lessons.Text {
	t, _ := lessons.Lookup("ui." + id)
	return t
}

// lessonStrings is the panel's catalogue for its script: every "ui." label
// by language, {"en": {"next": "Next", ...}, "ko": {...}}, as JSON.
func lessonStrings() string {
	out := map[string]map[string]string{}
	for _, lang := range lessonLanguages {
		cat := lessons.Catalogue(lang.Code)
		m := map[string]string{}
		keys := make([]string, 0, len(cat))
		for id := range cat {
			keys = append(keys, string(id))
		}
		sort.Strings(keys)
		for _, id := range keys {
			if name, ok := strings.CutPrefix(id, "ui."); ok {
				m[name] = cat[lessons.Msg(id)]
			}
		}
		out[lang.Code] = m
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "{}" // maps of strings always marshal
	}
	return string(b)
}

func unavailableText(s lessons.Summary, lang string) string {
	if s.Unavailable == nil {
		return ""
	}
	if lang == lessons.Korean {
		return s.Unavailable.Ko
	}
	return s.Unavailable.En
}
