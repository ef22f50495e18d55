package pages

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// transactionStates are the states the transactions page filters by, as
// Kafka spells them (kafka-transactions.sh list prints them so).
var transactionStates = []string{"Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Empty", "PrepareEpochFence", "Dead"}

// maxOngoingDescribed bounds the ongoing transactions whose partitions
// the transactions page looks up when no topic is chosen, and so the
// partitions whose producers it describes.
const maxOngoingDescribed = 16

// transactionsView is the transactions page: the transactional ids the
// coordinators know, and the producers of a topic's partitions with
// find-hanging's verdict.
type transactionsView struct {
	layoutView
	State        string
	States       []string
	Transactions []cluster.TransactionSummary
	// Topics are the topics to choose from; Topic is the chosen one, ""
	// for the partitions the ongoing transactions write to.
	Topics []string
	Topic  string
	// Partitions are the producers of each partition shown that has any;
	// Quiet are the partitions shown without producer state.
	Partitions []producersView
	Quiet      []string
	// LeftOut counts the ongoing transactions past maxOngoingDescribed
	// whose partitions are not described (no topic chosen).
	LeftOut int
	// ProducersProblem says why the producers could not be described,
	// ListProblem why the transactional ids could not be listed (a
	// missing right): each section says its own, the other stands.
	ProducersProblem, ListProblem catalog.Message
}

// producersView is one partition's producers.
type producersView struct {
	cluster.PartitionProducers
	Conn connection
	// TerminateRights are the rights forceTerminateTransaction needs, by
	// transactional id; AbortRight the one abort needs.
	TerminateRights map[string]cluster.Right
	AbortRight      cluster.Right
}

// LogPath is the partition page's URL.
func (p producersView) LogPath() string { return partitionPath(p.Topic, p.Partition) }

// Rows are the partition's producers, each knowing its partition.
func (p producersView) Rows() []producerRow {
	rows := make([]producerRow, len(p.Producers))
	for i, s := range p.Producers {
		rows[i] = producerRow{ProducerState: s, Topic: p.Topic, Partition: p.Partition, Conn: p.Conn,
			TerminateRight: p.TerminateRights[s.TransactionalID], AbortRight: p.AbortRight}
	}
	return rows
}

// TimeoutMinutes is the leader's transaction.max.timeout.ms in minutes.
func (p producersView) TimeoutMinutes() string {
	return strconv.FormatFloat(float64(p.MaxTransactionTimeoutMs)/60000, 'f', -1, 64)
}

// DescribeCommand is kafka-transactions.sh describe-producers for the
// partition.
func (p producersView) DescribeCommand() shellCommand {
	return p.Conn.command("kafka-transactions.sh", "describe-producers", "--topic "+shellWord(p.Topic), "--partition "+itoa32(p.Partition))
}

// FindHangingCommand is kafka-transactions.sh find-hanging for the
// partition.
func (p producersView) FindHangingCommand() shellCommand {
	return p.Conn.command("kafka-transactions.sh", "find-hanging", "--topic "+shellWord(p.Topic), "--partition "+itoa32(p.Partition))
}

// DescribeRight is what describe-producers and find-hanging need: READ
// on the topic, which the dashboard's user holds, or the page would not
// list the producers.
func (p producersView) DescribeRight() catalog.Message {
	return rightMessage(cluster.Right{Operation: "READ", Resource: "topic", Name: p.Topic, Known: true}, p.Conn.User)
}

// producerRow is one producer with state on a partition.
type producerRow struct {
	cluster.ProducerState
	Topic     string
	Partition int32
	Conn      connection
	// TerminateRight and AbortRight are the rights of the two commands
	// that end the producer's open transaction.
	TerminateRight, AbortRight cluster.Right
}

// Open reports whether the producer has a transaction open here.
func (p producerRow) Open() bool { return p.CurrentTransactionStartOffset >= 0 }

// StartText is the open transaction's first offset ("—" when none).
func (p producerRow) StartText() string { return offsetText(p.CurrentTransactionStartOffset) }

// ID is the producer id as text (ids above 2^53 stay exact).
func (p producerRow) ID() string { return i64(p.ProducerID) }

// LastWrite is when the producer last wrote here, in UTC.
func (p producerRow) LastWrite() string {
	if p.LastTimestamp < 0 {
		return "—"
	}
	return time.UnixMilli(p.LastTimestamp).UTC().Format("2006-01-02 15:04:05 UTC")
}

// Named reports whether a coordinator has the producer's open
// transaction Ongoing under a transactional id: it is aborted through the
// coordinator (forceTerminateTransaction), fencing the producer.
func (p producerRow) Named() bool {
	return p.Open() && p.TransactionalID != "" && p.TransactionState == "Ongoing"
}

// TerminateCommand is what an administrator types to abort the named
// transaction through its coordinator (Kafka 4.1+).
func (p producerRow) TerminateCommand() shellCommand {
	return p.Conn.command("kafka-transactions.sh", "forceTerminateTransaction", "--transactionalId "+shellWord(p.TransactionalID))
}

// TerminateRightMessage names the right forceTerminateTransaction needs.
func (p producerRow) TerminateRightMessage() catalog.Message {
	return rightMessage(p.TerminateRight, p.Conn.User)
}

// AbortRightMessage names the right abort needs.
func (p producerRow) AbortRightMessage() catalog.Message {
	return rightMessage(p.AbortRight, p.Conn.User)
}

// AbortCommand is what an administrator types to abort the transaction.
func (p producerRow) AbortCommand() shellCommand {
	return p.Conn.command("kafka-transactions.sh", "abort", "--topic "+shellWord(p.Topic), "--partition "+itoa32(p.Partition), "--start-offset "+p.StartText())
}

// Transactions is GET /transactions?state=&topic=: ListTransactions
// with a state filter, and DescribeProducers for the chosen topic's
// partitions (or, without one, the partitions ongoing transactions write
// to), hanging transactions flagged as find-hanging flags them.
func (s *Server) Transactions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := transactionsView{layoutView: s.newLayout(r, sectionTransactions, "Transactions"), State: q.Get("state"), States: transactionStates, Topic: q.Get("topic")}
	ctx, cancel := pageContext(r)
	defer cancel()
	var states []string
	if v.State != "" {
		states = append(states, v.State)
	}
	txns, err := s.deps.Lab.Transactions(ctx, states...)
	switch {
	case problem.KindOf(err) == problem.Forbidden:
		v.ListProblem = problem.As(err).Message
	case err != nil:
		s.renderPage(w, r, s.failPage(r, &v.layoutView, err, catalog.Message{}), transactionsPage(v))
		return
	}
	if s.access.MayReadOwn != nil {
		txns = slices.DeleteFunc(slices.Clone(txns), func(t cluster.TransactionSummary) bool { return !s.access.MayReadOwn(r, t.TransactionalID) })
	}
	v.Transactions = txns
	if v.Topic != "" && s.access.ListsTopic != nil && !s.access.ListsTopic(r, v.Topic) {
		v.Topic = "" // another student's: their producers are not this reader's to see
	}
	if topics, err := s.deps.Lab.Topics(ctx); err == nil {
		for _, t := range topics {
			if s.access.ListsTopic != nil && !s.access.ListsTopic(r, t.Name) {
				continue
			}
			if !t.Internal && !strings.HasPrefix(t.Name, "__") {
				v.Topics = append(v.Topics, t.Name)
			}
		}
	}
	status := http.StatusOK
	partitions, leftOut, err := s.producerPartitions(ctx, v.Topic, txns, v.State)
	v.LeftOut = leftOut
	if err == nil {
		err = s.describeProducers(ctx, &v, partitions)
	}
	if err != nil {
		status = s.failPage(r, &v.layoutView, err, catalog.M("page.noTopic", "topic", strconv.Quote(v.Topic)))
		v.ProducersProblem, v.Problem = v.Problem, catalog.Message{}
		if problem.KindOf(err) == problem.Forbidden {
			status = http.StatusOK // the list stands; the section says what it could not read
		}
	}
	s.renderPage(w, r, status, transactionsPage(v))
}

// topicPartition names one partition.
type topicPartition struct {
	Topic     string
	Partition int32
}

// producerPartitions are the partitions whose producers the page shows:
// the chosen topic's (at most maxStrips), or those the first
// maxOngoingDescribed ongoing transactions write to (Kafka's internal
// topics left out), with how many ongoing transactions were left out.
func (s *Server) producerPartitions(ctx context.Context, topic string, txns []cluster.TransactionSummary, state string) ([]topicPartition, int, error) {
	var out []topicPartition
	if topic != "" {
		t, err := s.deps.Lab.Topic(ctx, topic)
		if err != nil {
			return nil, 0, err
		}
		for i, p := range t.Partitions {
			if i >= maxStrips {
				break
			}
			out = append(out, topicPartition{topic, p.Partition})
		}
		return out, 0, nil
	}
	if state != "Ongoing" {
		var err error
		if txns, err = s.deps.Lab.Transactions(ctx, "Ongoing"); err != nil {
			return nil, 0, err
		}
	}
	described, leftOut := 0, 0
	for _, t := range txns {
		if t.State != "Ongoing" {
			continue
		}
		if described >= maxOngoingDescribed {
			leftOut++
			continue
		}
		described++
		info, err := s.deps.Lab.Transaction(ctx, t.TransactionalID)
		if err != nil {
			continue // ended meanwhile, or not ours to describe
		}
		for _, name := range info.Partitions {
			i := strings.LastIndexByte(name, '-')
			p, err := strconv.ParseInt(name[i+1:], 10, 32)
			if i <= 0 || err != nil || strings.HasPrefix(name, "__") {
				continue
			}
			tp := topicPartition{name[:i], int32(p)}
			if !slices.Contains(out, tp) && len(out) < maxOngoingDescribed {
				out = append(out, tp)
			}
		}
	}
	slices.SortFunc(out, func(a, b topicPartition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition - b.Partition)
	})
	return out, leftOut, nil
}

// describeProducers describes each partition's producers into v.
func (s *Server) describeProducers(ctx context.Context, v *transactionsView, partitions []topicPartition) error {
	var abortRight *cluster.Right // asked once, for the first open transaction
	for _, tp := range partitions {
		pp, err := s.deps.Lab.Producers(ctx, tp.Topic, tp.Partition)
		if err != nil {
			if problem.KindOf(err) == problem.NotFound && v.Topic == "" {
				continue // a topic deleted since the transaction wrote to it
			}
			return err
		}
		if len(pp.Producers) == 0 {
			v.Quiet = append(v.Quiet, tp.Topic+"-"+itoa32(tp.Partition))
			continue
		}
		view := producersView{PartitionProducers: pp, Conn: v.Connection(), TerminateRights: map[string]cluster.Right{}}
		for _, ps := range pp.Producers {
			if ps.CurrentTransactionStartOffset < 0 {
				continue
			}
			if abortRight == nil {
				r := s.deps.Lab.AbortRight(ctx)
				abortRight = &r
			}
			view.AbortRight = *abortRight
			if row := (producerRow{ProducerState: ps}); row.Named() {
				view.TerminateRights[ps.TransactionalID] = s.deps.Lab.TerminateRight(ctx, ps.TransactionalID, tp.Topic, tp.Partition)
			}
		}
		v.Partitions = append(v.Partitions, view)
	}
	return nil
}
