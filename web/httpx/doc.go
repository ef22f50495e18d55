// Package httpx is what the web layer's parts share below them: the
// services they drive (Deps, the interfaces the API and the pages need
// from internal/lab and internal/lessons), the one table from a problem's
// kind to an HTTP status and the error answer (errors.go), the decoding
// of request bodies and path parameters (decode.go), and who sent a
// request (role.go). It imports no other web package, so web, web/api
// and web/pages can all import it.
package httpx
