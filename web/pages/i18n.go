package pages

import (
	"encoding/json"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/lessons"
)

// The page is rendered in English with data-i18n keys of the catalogue
// (internal/catalog); static/i18n.js loads the catalogue files (served
// beside the static files, see assets.go) and switches languages.

// tr is the English sentence of key, as the server renders it; a missing
// key shows itself in brackets (the catalogue test fails on it first).
func tr(key string) string { return catalog.Text(catalog.English, key, nil) }

// trf is tr with {name} placeholders filled from args (name, value pairs).
func trf(key string, args ...string) string {
	return catalog.Text(catalog.English, key, catalog.Pairs(args...))
}

// i18nArgs is the data-i18n-args attribute of a sentence with placeholders.
func i18nArgs(args ...string) string {
	b, _ := json.Marshal(catalog.Pairs(args...))
	if string(b) == "null" {
		return "{}"
	}
	return string(b)
}

// language is one entry of a language switch: its code and its own name
// ("lang.self", each language's name in itself).
type language struct{ Code, Label string }

// languages are the switch's entries, in the catalogue's order.
func languages() []language {
	var out []language
	for _, l := range catalog.Languages() {
		out = append(out, language{Code: string(l), Label: catalog.Text(l, "lang.self", nil)})
	}
	return out
}

// lessonLabel is a label of the lessons panel ("lesson.ui." keys) in
// every language.
func lessonLabel(id string) lessons.Text {
	m := catalog.M("lesson.ui." + id)
	return lessons.Text{En: m.In(catalog.English), Ko: m.In(catalog.Korean)}
}

// unavailableText is why a lesson cannot run here, in lang.
func unavailableText(s lessons.Summary, lang string) string {
	if s.Unavailable == nil {
		return ""
	}
	if lang == string(catalog.Korean) {
		return s.Unavailable.Ko
	}
	return s.Unavailable.En
}
