package web

import (
	"net"
	"strings"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// JoinURL is the address students open in classroom mode.
func (s *Server) JoinURL() string { return s.joinURL }

// JoinLoopback tells whether classroom mode's join URL is this computer's
// loopback address, which no student can open, and the flag that fixes it.
func (s *Server) JoinLoopback() (fix string, loopback bool) {
	if !s.access.Classroom || !httpx.LoopbackURL(s.joinURL) {
		return "", false
	}
	// A join URL other than the one --addr gives was chosen (--join-url):
	// that is the flag to change.
	return httpx.JoinFix(s.joinURL, s.joinURL != deriveJoinURL(s.access.ListenAddr)), true
}

// joinWarning is the teacher's pages' sentence for JoinLoopback; nil when
// students can reach the join URL.
func (s *Server) joinWarning() *catalog.Message {
	fix, loopback := s.JoinLoopback()
	if !loopback {
		return nil
	}
	m := catalog.M("classroom.loopback", "url", s.joinURL, "flag", fix)
	return &m
}

// localAddr is the listen address as this machine reaches it: loopback
// when the server listens on every interface.
func (s *Server) localAddr() string {
	host, port, err := net.SplitHostPort(s.access.ListenAddr)
	if err != nil {
		return s.access.ListenAddr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// JoinURLFor is the URL students open of a server listening on listen:
// joinURL when given, else derived as classroom mode derives it. The
// server's wiring calls it before the Server exists, to advertise the
// embedded broker on the join URL's host.
func JoinURLFor(listen, joinURL string) string {
	if joinURL != "" {
		return joinURL
	}
	return deriveJoinURL(listen)
}

// deriveJoinURL picks the URL students open: the listen address, or, when
// the server listens on every interface, this machine's first private
// network address (then any non-loopback one) with the port.
func deriveJoinURL(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil || listen == "" {
		return ""
	}
	ip := net.ParseIP(host)
	if host != "" && (ip == nil || !ip.IsUnspecified()) {
		return "http://" + net.JoinHostPort(host, port) + "/"
	}
	var best net.IP
	for _, a := range interfaceIPs() {
		switch {
		case a.IsLoopback() || a.IsLinkLocalUnicast() || a.To4() == nil:
		case best == nil, a.IsPrivate() && !best.IsPrivate():
			best = a
		}
	}
	if best == nil {
		return "http://" + net.JoinHostPort("127.0.0.1", port) + "/"
	}
	return "http://" + net.JoinHostPort(best.String(), port) + "/"
}

// interfaceIPs lists this machine's addresses on interfaces that are up,
// leaving out container and VM bridges, which students cannot reach.
func interfaceIPs() []net.IP {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var out []net.IP
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 {
			continue
		}
		if n := ifc.Name; strings.HasPrefix(n, "docker") || strings.HasPrefix(n, "br-") || strings.HasPrefix(n, "veth") || strings.HasPrefix(n, "virbr") {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				out = append(out, n.IP)
			}
		}
	}
	return out
}
