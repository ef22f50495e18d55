// Package web is Offset Lab's HTTP face. It holds the router (every
// route in one function, Server.Handler), the middleware every request
// passes (security.go, writes.go, limits.go), the classroom's roles and
// teacher login, and the websocket (ws.go). The handlers live by role
// beneath it: web/api the JSON API (docs/api.md), one file per resource;
// web/pages the pages rendered from templ components; web/static the
// browser modules and stylesheets; web/httpx what those share (the
// interfaces they need from the lab, the one kind → status table,
// request decoding, who sent a request). It knows HTTP and nothing of
// Kafka's wire protocol.
package web
