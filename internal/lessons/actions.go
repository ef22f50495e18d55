package lessons

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// stepContext is what an action runs with.
type stepContext struct {
	context.Context
	run     *run
	deps    *Deps
	expects []Expect
}

// args lists the Args the step's expectations give fact.
func (sc stepContext) args(fact string) []string {
	var out []string
	for _, e := range sc.expects {
		if e.Fact == fact {
			out = append(out, sc.run.name(e.Arg))
		}
	}
	return out
}

// observation is what a step saw: facts to check, the lines a command
// would have printed, and the log the step concerns.
type observation struct {
	facts  map[string]string
	output []string
	// command, when set, replaces the step's command with the exact one
	// for what the step found (e.g. which brokers are the followers).
	command   string
	topic     string
	partition int32
}

func newObservation(topic string, partition int32) *observation {
	return &observation{facts: map[string]string{}, output: []string{}, topic: topic, partition: partition}
}

func (o *observation) set(fact, value string) { o.facts[fact] = value }

func (o *observation) setArg(fact, arg, value string) { o.facts[fact+":"+arg] = value }

// fact returns an observed fact, or "not observed".
func (o *observation) fact(name, arg string) string {
	key := name
	if arg != "" {
		key += ":" + arg
	}
	if v, ok := o.facts[key]; ok {
		return v
	}
	return "not observed"
}

func (o *observation) printf(format string, args ...any) {
	o.output = append(o.output, fmt.Sprintf(format, args...))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func joinOffsets(offsets []int64) string {
	if len(offsets) == 0 {
		return "none"
	}
	parts := make([]string, len(offsets))
	for i, o := range offsets {
		parts[i] = strconv.FormatInt(o, 10)
	}
	return strings.Join(parts, ", ")
}

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// ---- CreateTopics ----------------------------------------------------------

// Kind implements Action.
func (CreateTopics) Kind() string { return "create-topics" }

// Facts implements Action: "created" counts the topics created.
func (CreateTopics) Facts() []string { return []string{"created"} }

func (a CreateTopics) run(sc stepContext) (*observation, error) {
	var obs *observation
	for _, spec := range a.Topics {
		name := sc.run.name(spec.Name)
		if obs == nil {
			obs = newObservation(name, 0)
		}
		_, err := sc.deps.Cluster.CreateTopic(sc, cluster.TopicSpec{
			Name: name, Partitions: spec.Partitions, ReplicationFactor: spec.ReplicationFactor, Configs: spec.Configs,
		})
		if err != nil {
			return obs, err
		}
		obs.printf("Created topic %s.", name)
	}
	obs.set("created", strconv.Itoa(len(a.Topics)))
	return obs, nil
}

// ---- Produce ---------------------------------------------------------------

// Kind implements Action.
func (Produce) Kind() string { return "produce" }

// Facts implements Action.
func (Produce) Facts() []string {
	return []string{"acknowledged", "offsets", "errors", "ackLost", "producerId", "newProducerId", "partitions", "inOrder", "refused", "errorMentions:"}
}

func (a Produce) run(sc stepContext) (*observation, error) {
	topic := sc.run.name(a.Topic)
	obs := newObservation(topic, 0)
	idempotent := a.Idempotent
	req := producer.Request{
		Topic: topic, Values: a.Values, Fault: a.Fault,
		Profile: producer.Profile{Acks: a.Acks, Idempotent: &idempotent},
	}
	if a.Key != "" {
		key := a.Key
		req.Key = &key
	}
	out, err := sc.deps.Producer.Produce(sc, req)
	if a.Refused {
		obs.set("refused", yesNo(errors.Is(err, producer.ErrInvalidConfig)))
		for _, word := range sc.args("errorMentions") {
			obs.setArg("errorMentions", word, yesNo(err != nil && strings.Contains(err.Error(), word)))
		}
		if err != nil {
			obs.printf("The producer refused to start: %s", err.Error())
		} else {
			obs.printf("The producer accepted the settings and sent %d value(s).", len(out.Results))
		}
		return obs, nil
	}
	if err != nil {
		return obs, err
	}
	var offsets []int64
	unknown, errs := 0, 0
	partitions := map[int32][]int64{}
	for _, r := range out.Results {
		switch {
		case r.Error != nil:
			errs++
			obs.printf("%q: failed: %s", r.Value, *r.Error)
		case r.Offset == nil:
			unknown++
			obs.printf("%q: sent to partition %d, offset unknown (acks=0: the broker does not answer)", r.Value, r.Partition)
		default:
			offsets = append(offsets, *r.Offset)
			partitions[r.Partition] = append(partitions[r.Partition], *r.Offset)
			obs.printf("%q: stored in partition %d at offset %d", r.Value, r.Partition, *r.Offset)
		}
		if r.Partition >= 0 && obs.partition == 0 {
			obs.partition = r.Partition
		}
	}
	if out.AckLost {
		obs.printf("The broker's ACK for the first batch was lost on the way back; the producer retried.")
	}
	if out.ProducerID >= 0 {
		obs.printf("Producer id %d, epoch %d.", out.ProducerID, out.ProducerEpoch)
	}
	obs.set("acknowledged", strconv.Itoa(len(offsets)))
	if unknown > 0 && len(offsets) == 0 {
		obs.set("offsets", "unknown")
	} else {
		obs.set("offsets", joinOffsets(offsets))
	}
	obs.set("errors", strconv.Itoa(errs))
	for _, word := range sc.args("errorMentions") {
		every := errs > 0
		for _, r := range out.Results {
			if r.Error != nil && !strings.Contains(*r.Error, word) {
				every = false
			}
		}
		obs.setArg("errorMentions", word, yesNo(every))
	}
	obs.set("ackLost", yesNo(out.AckLost))
	obs.set("partitions", strconv.Itoa(len(partitions)))
	inOrder := true
	for _, offs := range partitions {
		inOrder = inOrder && slices.IsSorted(offs)
	}
	obs.set("inOrder", yesNo(inOrder))
	sc.run.mu.Lock()
	defer sc.run.mu.Unlock()
	if out.ProducerID >= 0 {
		obs.set("producerId", "assigned")
		obs.set("newProducerId", yesNo(!slices.Contains(sc.run.memory.producerIDs, out.ProducerID)))
		sc.run.memory.producerIDs = append(sc.run.memory.producerIDs, out.ProducerID)
	} else {
		obs.set("producerId", "none")
		obs.set("newProducerId", "no")
	}
	if a.Key != "" && len(out.Results) > 0 && out.Results[0].Partition >= 0 {
		sc.run.memory.keyPartition[a.Key] = out.Results[0].Partition
	}
	return obs, nil
}

// ---- RunProcessor ----------------------------------------------------------

// Kind implements Action.
func (RunProcessor) Kind() string { return "run-processor" }

// Facts implements Action: "processed" lists the order ids processed.
func (RunProcessor) Facts() []string { return []string{"crashed", "processed", "retried"} }

func (a RunProcessor) run(sc stepContext) (*observation, error) {
	cfg := producer.RunConfig{
		Mode: a.Mode, Input: sc.run.name(a.Input), Output: sc.run.name(a.Output), Group: sc.run.name(a.Group), CrashAt: a.CrashAt,
	}
	if a.TransactionalID != "" {
		cfg.TransactionalID = sc.run.name(a.TransactionalID)
	}
	obs := newObservation(cfg.Output, 0)
	res, err := sc.deps.Processor.Run(sc, cfg)
	if res != nil {
		obs.output = append(obs.output, res.Log...)
	}
	if err != nil {
		return obs, err
	}
	var processed []string
	retried := false
	for _, line := range res.Log {
		if f := strings.Fields(line); len(f) >= 4 && f[0] == "offset" && f[3] == "processed," {
			processed = append(processed, f[2])
		}
		retried = retried || strings.Contains(line, "CONCURRENT_TRANSACTIONS")
	}
	obs.set("crashed", yesNo(res.Crashed))
	obs.set("processed", strings.Join(processed, ", "))
	if len(processed) == 0 {
		obs.set("processed", "none")
	}
	obs.set("retried", yesNo(retried))
	if cfg.Mode == producer.Transactional {
		if res.Crashed {
			sc.run.mu.Lock()
			sc.run.memory.crashedEpoch[cfg.TransactionalID] = res.ProducerEpoch
			sc.run.mu.Unlock()
		} else {
			settle(sc, sc.deps.Cluster, cfg.TransactionalID)
		}
	}
	return obs, nil
}

// settle waits (up to 30 s) until the coordinator of id has written the
// markers of its last EndTxn: Kafka answers EndTxn at PrepareCommit and
// writes the markers just after.
func settle(ctx context.Context, c Cluster, id string) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		t, err := c.Transaction(ctx, id)
		if err != nil || !strings.HasPrefix(t.State, "Prepare") {
			return
		}
		if sleep(ctx, 50*time.Millisecond) != nil {
			return
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ---- transactions step by step --------------------------------------------

// Kind implements Action.
func (Begin) Kind() string { return "txn-begin" }

// Facts implements Action: "fencedPrevious" says the epoch rose above the
// one another process of the run began with; "sameProducerId" that the
// producer id stayed (a fence keeps the id, bumps the epoch).
func (Begin) Facts() []string { return []string{"producerId", "fencedPrevious", "sameProducerId"} }

func (a Begin) run(sc stepContext) (*observation, error) {
	id := sc.run.name(a.TransactionalID)
	process := cmp.Or(a.Process, defaultProcess)
	obs := newObservation("", 0)
	sessions := sc.run.process(process)
	var st producer.SessionState
	var err error
	if a.TimeoutMs > 0 {
		st, err = sessions.BeginTimeout(sc, id, time.Duration(a.TimeoutMs)*time.Millisecond)
	} else {
		st, err = sessions.Begin(sc, id)
	}
	if err != nil {
		return obs, err
	}
	obs.printf("%s: init_transactions() and begin_transaction() for transactional.id %s: producer id %d, epoch %d.", process, id, st.ProducerID, st.ProducerEpoch)
	if a.TimeoutMs > 0 {
		obs.printf("transaction.timeout.ms = %d: the broker aborts this transaction if it is still open then.", a.TimeoutMs)
	}
	obs.set("producerId", yesNo(st.ProducerID >= 0))
	sc.run.mu.Lock()
	defer sc.run.mu.Unlock()
	prev, ok := sc.run.memory.began[id]
	fenced := ok && prev.process != process && st.ProducerEpoch > prev.epoch
	obs.set("fencedPrevious", yesNo(fenced))
	obs.set("sameProducerId", yesNo(ok && prev.id == st.ProducerID))
	if fenced {
		sc.run.memory.crashedEpoch[id] = prev.epoch
		obs.printf("The epoch rose from %d to %d: the coordinator fenced %s, the older producer with this transactional.id, and aborted its open transaction.", prev.epoch, st.ProducerEpoch, prev.process)
	}
	sc.run.memory.began[id] = beginRecord{process: process, id: st.ProducerID, epoch: st.ProducerEpoch}
	return obs, nil
}

// Kind implements Action.
func (Send) Kind() string { return "txn-send" }

// Facts implements Action: "error" is the Kafka error name of the first
// failed write ("none"), "fenced" whether the producer was fenced.
func (Send) Facts() []string { return []string{"offsets", "fenced", "error"} }

func (a Send) run(sc stepContext) (*observation, error) {
	id, topic := sc.run.name(a.TransactionalID), sc.run.name(a.Topic)
	process := cmp.Or(a.Process, defaultProcess)
	obs := newObservation(topic, 0)
	st, err := sc.run.process(process).Send(sc, id, producer.Request{Topic: topic, Values: a.Values})
	if err != nil {
		return obs, err
	}
	var offsets []int64
	firstErr := "none"
	for _, r := range st.Results {
		switch {
		case r.Error != nil:
			if firstErr == "none" {
				firstErr, _, _ = strings.Cut(*r.Error, ":")
			}
			obs.printf("%s: produce(%q) failed: %s", process, r.Value, *r.Error)
		case r.Offset != nil:
			offsets = append(offsets, *r.Offset)
			obs.partition = r.Partition
			obs.printf("%s: produce(%q): partition %d, offset %d (not committed yet)", process, r.Value, r.Partition, *r.Offset)
		}
	}
	if st.Fenced {
		obs.printf("%s is fenced: a newer producer owns transactional.id %s. Like a Java producer's ProducerFencedException, this is fatal: the application must close the producer.", process, id)
	}
	obs.set("offsets", joinOffsets(offsets))
	obs.set("fenced", yesNo(st.Fenced))
	obs.set("error", firstErr)
	return obs, nil
}

// Kind implements Action.
func (a End) Kind() string {
	if a.Commit {
		return "txn-commit"
	}
	return "txn-abort"
}

// Facts implements Action.
func (End) Facts() []string { return []string{"ended"} }

func (a End) run(sc stepContext) (*observation, error) {
	id := sc.run.name(a.TransactionalID)
	process := cmp.Or(a.Process, defaultProcess)
	obs := newObservation("", 0)
	if _, err := sc.run.process(process).End(sc, id, a.Commit); err != nil {
		return obs, err
	}
	settle(sc, sc.deps.Cluster, id)
	how := "aborted"
	if a.Commit {
		how = "committed"
	}
	obs.printf("%s: transaction of %s %s; the coordinator wrote the markers.", process, id, how)
	obs.set("ended", how)
	return obs, nil
}

// Kind implements Action.
func (Crash) Kind() string { return "txn-crash" }

// Facts implements Action.
func (Crash) Facts() []string { return []string{"crashed"} }

func (a Crash) run(sc stepContext) (*observation, error) {
	id := sc.run.name(a.TransactionalID)
	process := cmp.Or(a.Process, defaultProcess)
	obs := newObservation("", 0)
	st, err := sc.run.process(process).Crash(sc, id)
	if err != nil {
		return obs, err
	}
	obs.printf("%s killed: its connections dropped, no EndTxn was sent. The transaction of %s (producer %d, epoch %d) stays Ongoing.", process, id, st.ProducerID, st.ProducerEpoch)
	obs.set("crashed", yesNo(st.Crashed))
	sc.run.mu.Lock()
	sc.run.memory.crashedEpoch[id] = st.ProducerEpoch
	sc.run.mu.Unlock()
	return obs, nil
}

// ---- reading ---------------------------------------------------------------

// Kind implements Action.
func (ReadRecords) Kind() string { return "read-records" }

// Facts implements Action: "records" lists "offset: value", "count:V"
// counts the records whose value is V, "keyOrder:K" lists the values of
// key K in offset order.
func (ReadRecords) Facts() []string {
	return []string{"records", "offsets", "total", "count:", "keyOrder:"}
}

func (a ReadRecords) run(sc stepContext) (*observation, error) {
	topic := sc.run.name(a.Topic)
	partition := a.Partition
	if a.PartitionOfKey != "" {
		sc.run.mu.Lock()
		p, ok := sc.run.memory.keyPartition[a.PartitionOfKey]
		sc.run.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("no earlier step of this lesson wrote key %q", a.PartitionOfKey)
		}
		partition = p
	}
	obs := newObservation(topic, partition)
	if a.AtLeast > 0 {
		if err := waitForOffsets(sc, sc.deps.Log, topic, partition, a.AtLeast); err != nil {
			return obs, err
		}
	}
	recs, err := sc.deps.Log.ReadRecords(sc, topic, partition, a.Isolation, 0, inspect.MaxLimit)
	if err != nil {
		return obs, err
	}
	obs.printf("[%s] %s-%d", a.Isolation, topic, partition)
	var lines, offsets []string
	counts := map[string]int{}
	byKey := map[string][]string{}
	for _, r := range recs {
		v := str(r.Value)
		lines = append(lines, fmt.Sprintf("%d: %s", r.Offset, v))
		offsets = append(offsets, strconv.FormatInt(r.Offset, 10))
		counts[v]++
		if r.Key != nil {
			byKey[*r.Key] = append(byKey[*r.Key], v)
		}
		obs.printf("  offset %d: %s", r.Offset, v)
	}
	if len(recs) == 0 {
		obs.printf("  (nothing)")
	}
	obs.set("records", orNone(strings.Join(lines, " · ")))
	obs.set("offsets", orNone(strings.Join(offsets, ", ")))
	obs.set("total", strconv.Itoa(len(recs)))
	for _, v := range sc.args("count") {
		obs.setArg("count", v, strconv.Itoa(counts[v]))
	}
	for _, k := range sc.args("keyOrder") {
		obs.setArg("keyOrder", k, orNone(strings.Join(byKey[k], ", ")))
	}
	return obs, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// waitForOffsets waits (up to 10 s) until the partition's high watermark
// reaches n.
func waitForOffsets(ctx context.Context, log LogReader, topic string, partition int32, n int64) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, err := log.Pointers(ctx, topic, partition)
		if err != nil {
			return err
		}
		if p.HighWatermark >= n || time.Now().After(deadline) {
			return nil
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// Kind implements Action.
func (AwaitBrokerAbort) Kind() string { return "await-broker-abort" }

// Facts implements Action: those of ReadLog, once nothing is open.
func (AwaitBrokerAbort) Facts() []string { return ReadLog{}.Facts() }

func (a AwaitBrokerAbort) run(sc stepContext) (*observation, error) {
	topic := sc.run.name(a.Topic)
	start := time.Now()
	for {
		l, err := sc.deps.Log.ReadLog(sc, topic, 0, 0, inspect.MaxLimit)
		if err != nil {
			return newObservation(topic, 0), err
		}
		open := 0
		for _, e := range l.Entries {
			if e.Kind == inspect.KindData && e.Txn == inspect.TxnOpen {
				open++
			}
		}
		if open == 0 && l.LastStableOffset == l.HighWatermark {
			break
		}
		if time.Since(start) > a.Within {
			return newObservation(topic, 0), fmt.Errorf("lessons: %d record(s) of %s still in an open transaction after %s", open, topic, a.Within.Round(time.Second))
		}
		if err := sleep(sc, 250*time.Millisecond); err != nil {
			return newObservation(topic, 0), err
		}
	}
	obs, err := ReadLog{Topic: a.Topic}.run(sc)
	if obs != nil {
		obs.output = append([]string{fmt.Sprintf("Waited %.1f s: nobody committed or aborted, the broker aborted the transaction when its timeout passed.", time.Since(start).Seconds())}, obs.output...)
	}
	return obs, err
}

// Kind implements Action.
func (ReadLog) Kind() string { return "read-log" }

// Facts implements Action. "shape" lists each offset as "offset:txn" or
// "offset:MARKER"; "readCommitted"/"readUncommitted" list the offsets a
// consumer at that level receives; "count:V" counts data records with
// value V, "pid:V" says whether they carry a producer id, "sequences:V"
// lists their sequence numbers.
func (ReadLog) Facts() []string {
	return []string{"shape", "markers", "aborted", "open", "lso", "hw", "logStart", "offsets", "readCommitted", "readUncommitted", "count:", "pid:", "sequences:"}
}

func (a ReadLog) run(sc stepContext) (*observation, error) {
	topic := sc.run.name(a.Topic)
	obs := newObservation(topic, a.Partition)
	l, err := sc.deps.Log.ReadLog(sc, topic, a.Partition, 0, inspect.MaxLimit)
	if err != nil {
		return obs, err
	}
	var shape, markers []string
	var aborted, open, rc, ru []int64
	for _, e := range l.Entries {
		switch e.Kind {
		case inspect.KindControl:
			shape = append(shape, fmt.Sprintf("%d:%s", e.Offset, e.Marker))
			markers = append(markers, fmt.Sprintf("%d %s", e.Offset, e.Marker))
			obs.printf("offset %d  %s marker  (producer %d, epoch %d)", e.Offset, e.Marker, e.ProducerID, e.ProducerEpoch)
		case inspect.KindData:
			shape = append(shape, fmt.Sprintf("%d:%s", e.Offset, e.Txn))
			who := "no producer id"
			if e.ProducerID >= 0 {
				who = fmt.Sprintf("producer %d, epoch %d, sequence %d", e.ProducerID, e.ProducerEpoch, e.Sequence)
			}
			obs.printf("offset %d  %s  %s  (%s)", e.Offset, str(e.Value), txnLabel(e), who)
		default:
			shape = append(shape, fmt.Sprintf("%d:gap", e.Offset))
			obs.printf("offset %d  (no record)", e.Offset)
		}
		switch {
		case e.Kind == inspect.KindData && e.Txn == inspect.TxnAborted:
			aborted = append(aborted, e.Offset)
		case e.Kind == inspect.KindData && e.Txn == inspect.TxnOpen:
			open = append(open, e.Offset)
		}
		if e.ReadCommitted {
			rc = append(rc, e.Offset)
		}
		if e.ReadUncommitted {
			ru = append(ru, e.Offset)
		}
	}
	obs.printf("log start offset %d · last stable offset (LSO) %d · high watermark (HW) %d", l.LogStartOffset, l.LastStableOffset, l.HighWatermark)
	obs.set("shape", orNone(strings.Join(shape, " ")))
	obs.set("markers", orNone(strings.Join(markers, ", ")))
	obs.set("aborted", joinOffsets(aborted))
	obs.set("open", joinOffsets(open))
	obs.set("lso", strconv.FormatInt(l.LastStableOffset, 10))
	obs.set("hw", strconv.FormatInt(l.HighWatermark, 10))
	obs.set("logStart", strconv.FormatInt(l.LogStartOffset, 10))
	obs.set("offsets", strconv.Itoa(len(l.Entries)))
	obs.set("readCommitted", joinOffsets(rc))
	obs.set("readUncommitted", joinOffsets(ru))
	values := func(v string) []inspect.Entry {
		var out []inspect.Entry
		for _, e := range l.Entries {
			if e.Kind == inspect.KindData && str(e.Value) == v {
				out = append(out, e)
			}
		}
		return out
	}
	for _, v := range sc.args("count") {
		obs.setArg("count", v, strconv.Itoa(len(values(v))))
	}
	for _, v := range sc.args("pid") {
		es := values(v)
		obs.setArg("pid", v, yesNo(len(es) > 0 && !slices.ContainsFunc(es, func(e inspect.Entry) bool { return e.ProducerID < 0 })))
	}
	for _, v := range sc.args("sequences") {
		var seqs []int64
		for _, e := range values(v) {
			seqs = append(seqs, int64(e.Sequence))
		}
		obs.setArg("sequences", v, joinOffsets(seqs))
	}
	return obs, nil
}

// inSync reports whether partition 0 has every replica in its ISR.
func inSync(t cluster.TopicInfo) bool {
	return len(t.Partitions) > 0 && len(t.Partitions[0].ISR) == len(t.Partitions[0].Replicas)
}

func txnLabel(e inspect.Entry) string {
	if !e.Transactional {
		return "no transaction"
	}
	return e.Txn
}

// Kind implements Action.
func (ApplyPayments) Kind() string { return "apply-payments" }

// Facts implements Action: "deliveries" counts the events handed to the
// business logic, "skipped" those the processed-id store skipped,
// "balance" is the account after both deliveries, "status:O" an order's
// status.
func (ApplyPayments) Facts() []string { return []string{"deliveries", "skipped", "balance", "status:"} }

func (a ApplyPayments) run(sc stepContext) (*observation, error) {
	topic := sc.run.name(a.Topic)
	obs := newObservation(topic, 0)
	balance := int64(StartingBalance)
	status := map[string]string{}
	processed := map[string]bool{} // the persistent store: it survives the crash
	deliveries, skipped := 0, 0
	obs.printf("%-8s %-9s %-7s %s", "EVENT", "DELIVERY", "ORDER", "EFFECT")
	for pass := 1; pass <= 2; pass++ {
		recs, err := sc.deps.Log.ReadRecords(sc, topic, 0, inspect.ReadCommitted, 0, inspect.MaxLimit)
		if err != nil {
			return obs, err
		}
		for _, r := range recs {
			f := strings.Fields(str(r.Value))
			if len(f) != 3 {
				continue
			}
			event, order := f[0], f[1]
			amount, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				continue
			}
			deliveries++
			var effect string
			switch a.Effect {
			case EffectUpsert:
				status[order] = "PAID"
				effect = "status = PAID"
			case EffectDecrement:
				effect = fmt.Sprintf("balance %d → %d", balance, balance-amount)
				balance -= amount
			case EffectDedupe:
				if processed[event] {
					skipped++
					effect = "already processed: skipped"
				} else {
					effect = fmt.Sprintf("balance %d → %d", balance, balance-amount)
					balance -= amount
					processed[event] = true
				}
			default:
				return obs, fmt.Errorf("unknown effect %q", a.Effect)
			}
			obs.printf("%-8s %-9s %-7s %s", event, []string{"", "1st", "2nd"}[pass], order, effect)
		}
		if pass == 1 {
			obs.printf("— the consumer dies before committing its offset; the restarted one reads from offset 0 again —")
		}
	}
	switch a.Effect {
	case EffectUpsert:
		orders := slices.Sorted(maps.Keys(status))
		for _, o := range orders {
			obs.printf("order %s: status %s", o, status[o])
		}
	default:
		obs.printf("account balance: %d (started at %d)", balance, StartingBalance)
	}
	obs.set("deliveries", strconv.Itoa(deliveries))
	obs.set("skipped", strconv.Itoa(skipped))
	obs.set("balance", strconv.FormatInt(balance, 10))
	for _, o := range sc.args("status") {
		obs.setArg("status", o, cmp.Or(status[o], "none"))
	}
	return obs, nil
}

// ---- describing ------------------------------------------------------------

// Kind implements Action.
func (DescribeGroup) Kind() string { return "describe-group" }

// Facts implements Action: the group's single partition's offsets.
func (DescribeGroup) Facts() []string { return []string{"committed", "logEnd", "lag", "state"} }

func (a DescribeGroup) run(sc stepContext) (*observation, error) {
	group := sc.run.name(a.Group)
	obs := newObservation("", 0)
	g, err := sc.deps.Cluster.Group(sc, group)
	if err != nil {
		return obs, err
	}
	obs.printf("%-22s %-22s %-9s %-14s %-14s %s", "GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG")
	for _, o := range g.Offsets {
		obs.printf("%-22s %-22s %-9d %-14d %-14d %d", group, o.Topic, o.Partition, o.Committed, o.LogEnd, o.Lag)
	}
	obs.set("state", g.State)
	if len(g.Offsets) > 0 {
		o := g.Offsets[0]
		obs.topic, obs.partition = o.Topic, o.Partition
		obs.set("committed", strconv.FormatInt(o.Committed, 10))
		obs.set("logEnd", strconv.FormatInt(o.LogEnd, 10))
		obs.set("lag", strconv.FormatInt(o.Lag, 10))
	}
	return obs, nil
}

// Kind implements Action.
func (DescribeTransaction) Kind() string { return "describe-transaction" }

// Facts implements Action: "lists:T" says whether partition 0 of topic T
// is in the transaction, "offsetsPartition" whether a __consumer_offsets
// partition is, "epochBumped" whether the epoch is above that of the
// producer that crashed or was fenced earlier in the run.
func (DescribeTransaction) Facts() []string {
	return []string{"state", "lists:", "offsetsPartition", "epochBumped", "timeoutMs", "brokerNote"}
}

func (a DescribeTransaction) run(sc stepContext) (*observation, error) {
	id := sc.run.name(a.TransactionalID)
	obs := newObservation("", 0)
	settle(sc, sc.deps.Cluster, id)
	t, err := sc.deps.Cluster.Transaction(sc, id)
	if err != nil {
		return obs, err
	}
	obs.printf("%-28s %-12s %-14s %-18s %-20s %s", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState", "TransactionTimeoutMs", "TopicPartitions")
	obs.printf("%-28s %-12d %-14d %-18s %-20d %s", id, t.ProducerID, t.ProducerEpoch, t.State, t.TimeoutMs, strings.Join(t.Partitions, ","))
	if t.BrokerNote != "" {
		obs.printf("Note: %s", t.BrokerNote)
	}
	obs.set("state", t.State)
	obs.set("timeoutMs", strconv.Itoa(int(t.TimeoutMs)))
	obs.set("brokerNote", yesNo(t.BrokerNote != ""))
	obs.set("offsetsPartition", yesNo(slices.ContainsFunc(t.Partitions, func(p string) bool { return strings.HasPrefix(p, "__consumer_offsets-") })))
	for _, topic := range sc.args("lists") {
		obs.setArg("lists", topic, yesNo(slices.Contains(t.Partitions, topic+"-0")))
	}
	sc.run.mu.Lock()
	crashed, ok := sc.run.memory.crashedEpoch[id]
	sc.run.mu.Unlock()
	if ok {
		obs.set("epochBumped", yesNo(t.ProducerEpoch > crashed))
	}
	return obs, nil
}

// Kind implements Action.
func (DescribeTopic) Kind() string { return "describe-topic" }

// Facts implements Action: partition 0's replica and in-sync replica counts.
func (DescribeTopic) Facts() []string { return []string{"partitions", "replicas", "isr", "leader"} }

func (a DescribeTopic) run(sc stepContext) (*observation, error) {
	topic := sc.run.name(a.Topic)
	obs := newObservation(topic, 0)
	deadline := time.Now().Add(30 * time.Second)
	t, err := sc.deps.Cluster.Topic(sc, topic)
	for err == nil && a.WaitInSync && !inSync(t) && time.Now().Before(deadline) {
		if err = sleep(sc, 200*time.Millisecond); err == nil {
			t, err = sc.deps.Cluster.Topic(sc, topic)
		}
	}
	if err != nil {
		return obs, err
	}
	ints := func(s []int32) string {
		parts := make([]string, len(s))
		for i, v := range s {
			parts[i] = strconv.Itoa(int(v))
		}
		return strings.Join(parts, ",")
	}
	for _, p := range t.Partitions {
		obs.printf("Topic: %s  Partition: %d  Leader: %d  Replicas: %s  Isr: %s", topic, p.Partition, p.Leader, ints(p.Replicas), ints(p.ISR))
	}
	obs.set("partitions", strconv.Itoa(len(t.Partitions)))
	if len(t.Partitions) > 0 {
		p := t.Partitions[0]
		obs.set("replicas", strconv.Itoa(len(p.Replicas)))
		obs.set("isr", strconv.Itoa(len(p.ISR)))
		obs.set("leader", yesNo(p.Leader >= 0))
	}
	return obs, nil
}
