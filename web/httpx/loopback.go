package httpx

import (
	"net"
	"net/url"
	"strings"
)

// LoopbackURL tells whether raw names this machine's own loopback
// address (127.0.0.0/8, ::1, localhost): a classroom's join URL there
// opens on the teacher's computer only, never on a student's.
func LoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// JoinFix is the command-line flag that gives a classroom on a loopback
// join URL an address students can reach: the join URL's own flag when it
// was given, else listening on every interface at the same port.
func JoinFix(joinURL string, given bool) string {
	if given {
		return "--join-url http://<this computer's address>:<port>/"
	}
	port := "8080"
	if u, err := url.Parse(joinURL); err == nil && u.Port() != "" {
		port = u.Port()
	}
	return "--addr 0.0.0.0:" + port
}
