package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// studentReads lets a classroom student read only what their Kafka user
// may read plus the partition on the stage (see api.Server.MayReadTopic):
// a topic's or partition's page, API and live feed, a group's, a
// transactional id's. The lists are filtered by their handlers. It runs
// after identify.
func (s *Server) studentReads(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !safeMethod(r.Method) {
			next.ServeHTTP(w, r)
			return
		}
		what, name, partition, ok := readTarget(r.URL)
		switch {
		case !ok:
		case what == "topic" && !s.api.MayReadTopic(r, name, partition):
			s.api.RefuseRead(w, r, what, name)
			return
		case what != "topic" && !s.api.MayReadOwn(r, name):
			s.api.RefuseRead(w, r, what, name)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// readTarget is what a read names: ("topic", name, partition or -1),
// ("group", name, -1) or ("transactionalId", id, -1); ok is false for
// every other path.
func readTarget(u *url.URL) (what, name string, partition int32, ok bool) {
	parts := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	if len(parts) > 0 && (parts[0] == "api" || parts[0] == "ws") {
		parts = parts[1:]
	}
	if len(parts) < 2 || parts[1] == "" {
		return "", "", 0, false
	}
	name, err := url.PathUnescape(parts[1])
	if err != nil {
		return "", "", 0, false
	}
	switch parts[0] {
	case "topics":
		partition = -1
		if len(parts) >= 4 && parts[2] == "partitions" {
			p, err := strconv.ParseInt(parts[3], 10, 32)
			if err != nil {
				return "", "", 0, false // the handler refuses it
			}
			partition = int32(p)
		}
		return "topic", name, partition, true
	case "groups":
		return "group", name, -1, true
	case "transactions":
		return "transactionalId", name, -1, true
	}
	return "", "", 0, false
}
