// Package pages renders Offset Lab's pages on the server from templ
// components: the partition page (the live log with its dock: lesson,
// act, explore, inspect, details) and the pages of the Topics, Groups and
// Transactions sections. Every page is drawn in one frame (layout.templ:
// the document, the broker banner, the masthead with the navigation and
// the language switch); each page has its view model and handler in
// NAME.go beside its template NAME.templ. The browser modules
// (web/static) draw what moves: the log, the strips, the dock's tabs.
package pages
