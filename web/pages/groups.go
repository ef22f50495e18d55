package pages

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// groupsView is the consumer groups page.
type groupsView struct {
	layoutView
	Groups []cluster.GroupSummary
}

// groupView is one consumer group's page.
type groupView struct {
	layoutView
	Name    string
	Group   cluster.GroupDetail
	Offsets []offsetRow
}

// DescribeCommand is kafka-consumer-groups.sh --describe for the group
// (kafka-share-groups.sh for a share group), connected as the dashboard is.
func (v groupView) DescribeCommand() shellCommand {
	tool := "kafka-consumer-groups.sh"
	if v.Group.Type == "share" {
		tool = "kafka-share-groups.sh"
	}
	return v.Connection().command(tool, "--describe", "--group "+shellWord(v.Name))
}

// DescribeRight is what --describe needs: DESCRIBE on the group, which
// the dashboard's user holds, or the page would not show it.
func (v groupView) DescribeRight() catalog.Message {
	return rightMessage(cluster.Right{Operation: "DESCRIBE", Resource: "group", Name: v.Name, Known: true}, v.User)
}

// offsetRow is a group's committed offset on one partition, with both
// lags and why they differ.
type offsetRow struct {
	cluster.GroupOffset
}

// LogPath is the partition page's URL.
func (o offsetRow) LogPath() string { return partitionPath(o.Topic, o.Partition) }

// CommittedText is the committed offset ("—" when none).
func (o offsetRow) CommittedText() string { return offsetText(o.Committed) }

// LogEndText is the log end offset ("—" when unknown).
func (o offsetRow) LogEndText() string { return offsetText(o.LogEnd) }

// LagText is the offset lag ("—" when it cannot be computed).
func (o offsetRow) LagText() string { return offsetText(o.Lag) }

// RecordLagText is the record lag ("—" when it could not be counted).
func (o offsetRow) RecordLagText() string { return offsetText(o.RecordLag) }

// TransactionPath is the transactions page of the open transaction that
// holds the partition's LSO, "" when none does.
func (o offsetRow) TransactionPath() string {
	if o.Held == nil {
		return ""
	}
	return heldTransactionPath(o.Held)
}

// HeldCellsPath is the partition page at the held LSO.
func (o offsetRow) HeldCellsPath() string { return heldCellsPath(o.Held) }

// HeldTransactionalID is the transactional id holding the LSO, "" when
// none is known.
func (o offsetRow) HeldTransactionalID() string {
	if o.Held == nil || o.Held.Holder == nil {
		return ""
	}
	return o.Held.Holder.TransactionalID
}

// HeldLSOText is the last stable offset an open transaction holds, ""
// when none holds it (the group page's script compares it with the API's
// answer to know when to refresh).
func (o offsetRow) HeldLSOText() string {
	if o.Held == nil {
		return ""
	}
	return i64(o.Held.LastStableOffset)
}

// HeldWaitingText counts the records waiting behind the open
// transaction, "" when none holds the LSO.
func (o offsetRow) HeldWaitingText() string {
	if o.Held == nil {
		return ""
	}
	return i64(o.Held.Waiting)
}

// Differ reports whether the two lags differ.
func (o offsetRow) Differ() bool { return o.Lag >= 0 && o.RecordLag >= 0 && o.Lag != o.RecordLag }

// Why is the sentence saying why the two lags differ, or why the record
// lag is missing; zero when they agree.
func (o offsetRow) Why() catalog.Message {
	switch {
	case o.Held != nil && o.RecordLag >= 0:
		return heldWhy(o.RecordLag, o.Held)
	case o.RecordLag < 0 && o.Lag >= 0 && o.RecordLagWhy != nil:
		return *o.RecordLagWhy // a right the user lacks, named, or the read's failure
	case o.Lag >= 0 && o.RecordLag < 0:
		return catalog.M("groupPage.why.uncounted")
	case !o.Differ():
		return catalog.Message{}
	case o.Lag == 1 && o.RecordLag == 0:
		return catalog.M("groupPage.why.trailing")
	default:
		return catalog.M("groupPage.why.skipped", "skipped", i64(o.Lag-o.RecordLag), "lag", i64(o.Lag))
	}
}

func offsetText(n int64) string {
	if n < 0 {
		return "—"
	}
	return i64(n)
}

// membersText is a group's member count ("—" when it could not be read).
func membersText(n int) string {
	if n < 0 {
		return "—"
	}
	return strconv.Itoa(n)
}

// partitionsText writes partition numbers as "0, 1, 2".
func partitionsText(ps []int32) string { return brokerList(ps) }

// Groups is GET /groups: every consumer group with its state,
// protocol and member count.
func (s *Server) Groups(w http.ResponseWriter, r *http.Request) {
	v := groupsView{layoutView: s.newLayout(r, sectionGroups, "Consumer groups")}
	ctx, cancel := pageContext(r)
	defer cancel()
	groups, err := s.deps.Lab.Groups(ctx)
	if err != nil {
		s.renderPage(w, r, s.failPage(r, &v.layoutView, err, catalog.Message{}), groupsPage(v))
		return
	}
	if s.access.MayReadOwn != nil {
		groups = slices.DeleteFunc(slices.Clone(groups), func(g cluster.GroupSummary) bool { return !s.access.MayReadOwn(r, g.Group) })
	}
	v.Groups = groups
	s.renderPage(w, r, http.StatusOK, groupsPage(v))
}

// Group is GET /groups/{group}: state, protocol, members with their
// assignments, and per partition the committed offset, the log end and
// both lags, with a sentence where they differ.
func (s *Server) Group(w http.ResponseWriter, r *http.Request) {
	name := httpx.PathParam(r, "group")
	v := groupView{layoutView: s.newLayout(r, sectionGroups, name), Name: name}
	ctx, cancel := pageContext(r)
	defer cancel()
	g, err := s.deps.Lab.GroupDetail(ctx, name)
	if err != nil {
		status := s.failPage(r, &v.layoutView, err, catalog.M("page.noGroup", "group", strconv.Quote(name)))
		s.renderPage(w, r, status, groupPage(v))
		return
	}
	v.Group = g
	for _, o := range g.Offsets {
		v.Offsets = append(v.Offsets, offsetRow{o})
	}
	s.renderPage(w, r, http.StatusOK, groupPage(v))
}
