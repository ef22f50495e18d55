package web

import (
	"encoding/json"
	"strings"
	"sync"
)

// The UI catalogue is static/i18n/{en,ko}.json, one JSON object per
// language: key → sentence, {name} placeholders. It is part of the
// embedded static tree (assets.go), so the browser fetches it at a
// versioned, cached URL next to static/i18n.js, which switches languages.
// The server renders the page in English with data-i18n keys.

// uiLanguages are the catalogue's languages, English first (the default).
var uiLanguages = []string{"en", "ko"}

// uiCatalogue parses the embedded catalogue once.
var uiCatalogue = sync.OnceValue(func() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, lang := range uiLanguages {
		b, err := staticFiles.ReadFile("static/i18n/" + lang + ".json")
		if err != nil {
			panic(err)
		}
		m := map[string]string{}
		if err := json.Unmarshal(b, &m); err != nil {
			panic("web/static/i18n/" + lang + ".json: " + err.Error())
		}
		out[lang] = m
	}
	return out
})

// tr is the English sentence of key, as the server renders it; a missing
// key shows itself in brackets (TestUICatalogue fails on it first).
func tr(key string) string {
	if s, ok := uiCatalogue()["en"][key]; ok {
		return s
	}
	return "[" + key + "]"
}

// trf is tr with {name} placeholders filled from args (name, value pairs).
func trf(key string, args ...string) string {
	s := tr(key)
	for i := 0; i+1 < len(args); i += 2 {
		s = strings.ReplaceAll(s, "{"+args[i]+"}", args[i+1])
	}
	return s
}

// i18nArgs is the data-i18n-args attribute of a sentence with placeholders.
func i18nArgs(args ...string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(args); i += 2 {
		m[args[i]] = args[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}
