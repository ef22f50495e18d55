// Package uikey lets an error name the sentence of the UI catalogue
// (web/static/i18n/{en,ko}.json) that says the same as its English
// Error(), so the page can show it in the viewer's language. Domain
// packages satisfy Keyed without importing anything; the web package finds
// it with errors.As and sends the key and args next to the English sentence.
package uikey

// Keyed is an error that names a catalogue sentence: key (such as
// "error.idempotenceNeedsAcksAll") and the values of its {placeholders}.
// An empty key means the error has none; its English sentence stands.
type Keyed interface {
	MessageKey() (key string, args map[string]string)
}
