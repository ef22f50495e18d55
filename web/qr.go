package web

import (
	"fmt"
	"net/http"
	"strings"

	"rsc.io/qr"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// qrSVG draws text as a QR code (error correction level M) in SVG: one
// path of unit squares on a white square with the standard four-module
// quiet zone. SVG keeps it sharp on a projector at any size, and as an
// <img> from our own origin it needs nothing beyond the strict CSP.
func qrSVG(text string) ([]byte, error) {
	code, err := qr.Encode(text, qr.M)
	if err != nil {
		return nil, fmt.Errorf("encode %q as a QR code: %w", text, err)
	}
	const quiet = 4
	n := code.Size + 2*quiet
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges" role="img">`, n, n)
	fmt.Fprintf(&b, `<title>QR code: %s</title>`, xmlEscape(text))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, n, n)
	for y := range code.Size {
		for x := range code.Size {
			if code.Black(x, y) {
				fmt.Fprintf(&b, "M%d %dh1v1h-1z", x+quiet, y+quiet)
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return []byte(b.String()), nil
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// joinQR is GET /classroom/join.svg: the join URL as a QR code, for the
// teacher to project. The join URL is no secret; 404 outside classroom mode.
func (s *Server) joinQR(w http.ResponseWriter, r *http.Request) {
	if !s.access.Classroom || s.joinURL == "" {
		httpx.Refuse(w, problem.NotFound, "error.noJoinURL")
		return
	}
	svg, err := qrSVG(s.joinURL)
	if err != nil {
		httpx.WriteError(s.log, w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(svg)
}
