package lessons

import "maps"

// Languages of the catalogue, as the lang attribute spells them.
const (
	English = "en"
	Korean  = "ko"
)

// text looks a sentence up in every language. A missing sentence shows its
// id in brackets (a catalogue test fails on it first).
func text(id Msg) Text {
	t := Text{En: english[id], Ko: korean[id]}
	if t.En == "" {
		t.En = "[" + string(id) + "]"
	}
	if t.Ko == "" {
		t.Ko = "[" + string(id) + "]"
	}
	return t
}

// Lookup returns the catalogue sentence id in both languages, and whether
// the catalogue has it. The web layer uses it for the lessons panel's own
// labels (ids starting with "ui.").
func Lookup(id string) (Text, bool) {
	_, en := english[Msg(id)]
	_, ko := korean[Msg(id)]
	return text(Msg(id)), en && ko
}

// Catalogue returns a copy of the catalogue of one language.
func Catalogue(lang string) map[Msg]string {
	switch lang {
	case English:
		return maps.Clone(english)
	case Korean:
		return maps.Clone(korean)
	}
	return nil
}
