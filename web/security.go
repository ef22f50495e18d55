package web

import (
	"cmp"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// The security middleware every request passes (see Handler): strict
// headers, a Host that names this server, writes only from this origin,
// bodies that are JSON and bounded. Who may write at all, and one write at
// a time, is writes.go.

// securityHeaders sets a strict CSP and friends on every response.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// checkHost answers 421 to a request whose Host is not this server's: a
// page whose DNS name was rebound to 127.0.0.1 sends its own name as Host
// and gets nothing (see hostAllowed).
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			s.log.Warn("request for a foreign host refused", "host", r.Host, "path", r.URL.Path, "remote", r.RemoteAddr)
			httpx.WriteProblem(w, http.StatusMisdirectedRequest, problem.New(problem.Forbidden, "error.foreignHost", "host", r.Host, "name", hostOnly(r.Host)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether a Host header names this server: a loopback
// name, the listen address, this machine's own addresses (when listening
// on all of them), the join URL's host or one of the --allowed-hosts.
func (s *Server) hostAllowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, ""
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if s.access.ListenAddr == "" {
		return true // no address to check against (see Access.ListenAddr)
	}
	if host == "" {
		return false
	}
	for _, h := range s.access.AllowedHosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if ah, ap, err := net.SplitHostPort(h); err == nil {
			if strings.Trim(ah, "[]") == host && ap == port {
				return true
			}
		} else if strings.Trim(h, "[]") == host {
			return true
		}
	}
	listenHost, listenPort, err := net.SplitHostPort(s.access.ListenAddr)
	if err != nil {
		return isLoopbackName(host)
	}
	if port == "" {
		port = "80"
	}
	if port != listenPort {
		return false
	}
	if isLoopbackName(host) || strings.EqualFold(strings.Trim(listenHost, "[]"), host) {
		return true
	}
	if u, err := url.Parse(s.joinURL); err == nil && strings.EqualFold(u.Hostname(), host) {
		return true
	}
	lip := net.ParseIP(listenHost)
	if listenHost != "" && (lip == nil || !lip.IsUnspecified()) {
		return false
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	for _, a := range interfaceIPs() {
		if a.Equal(ip) {
			return true
		}
	}
	return false
}

func isLoopbackName(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// safeMethod is a request that changes nothing.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sameOriginWrites refuses state-changing requests sent by a page of
// another origin: a browser always sends Origin (or Sec-Fetch-Site) on a
// cross-origin POST, so a foreign page cannot drive the broker. Requests
// without either header (curl, scripts) are not from a browser page.
func sameOriginWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if safeMethod(r.Method) {
			next.ServeHTTP(w, r)
			return
		}
		if origin, ok := foreignOrigin(r); ok {
			httpx.Refuse(w, problem.Forbidden, "error.foreignOrigin", "origin", origin)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// foreignOrigin reports the request's origin when it is not exactly this
// server's: another site by Sec-Fetch-Site, or an Origin whose scheme, host
// or port differ from the request's own (userinfo or a path never match).
func foreignOrigin(r *http.Request) (string, bool) {
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return cmp.Or(r.Header.Get("Origin"), site), true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return "", false
	}
	return origin, !sameOrigin(origin, r)
}

// sameOrigin compares an Origin header with the request's scheme and Host.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return u.Scheme == scheme && strings.EqualFold(withPort(u.Host, scheme), withPort(r.Host, scheme))
}

// withPort adds the scheme's default port to a host without one.
func withPort(host, scheme string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "80"
	if scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}

// limitBody refuses a body larger than httpx.MaxBodyBytes: at once when its
// Content-Length says so, else when reading passes the limit.
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > httpx.MaxBodyBytes {
			httpx.Refuse(w, problem.TooLarge, "error.bodyTooLarge", "max", strconv.Itoa(httpx.MaxBodyBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, httpx.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// jsonBodies refuses a request body that says it is not JSON (a form,
// text/plain, multipart): 415. Every body the API takes is a JSON object; a
// body without a Content-Type (a script) is read as JSON.
func jsonBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		if ct != "" && httpx.HasBody(r) {
			mt, _, err := mime.ParseMediaType(ct)
			if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
				httpx.Refuse(w, problem.Unsupported, "error.notJSONContentType", "type", ct)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
