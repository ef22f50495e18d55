package embedded

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
)

// This file is the embedded broker's data budget. kfake stores whatever it
// is sent, for ever (Kafka's retention.bytes defaults to -1, and kfake
// applies retention only to topics that set it): one student's loop can
// fill the teacher's disk at hundreds of MB/s, and every stored batch also
// costs the process memory for its index entry, however small the batch.
// The budget counts what the stored data really costs and refuses writes
// past it, through kfake's storage hook (third_party/kfake/storage_budget.go),
// before anything is stored. Nothing stored is ever deleted to make room: a
// teacher frees space by deleting topics ("Clean up lab topics", Delete),
// and a student by deleting their topics or records, or by letting
// retention or compaction remove them; whatever the broker drops gives
// its cost back to the shares that stored it.
//
// The refusal is POLICY_VIOLATION, with a sentence in the Produce
// response's ErrorMessage (v8+) saying which budget is full. Kafka answers
// a failing log directory with KAFKA_STORAGE_ERROR and a quota with
// throttling; both are retriable, so a client would retry or wait until
// its delivery timeout (librdkafka: five minutes) and then report a
// timeout, never the reason. POLICY_VIOLATION is not retriable: kgo fails
// the record at once with "POLICY_VIOLATION: Request parameters do not
// satisfy the configured policy.", kcat prints "Broker: Policy violation"
// and confluent-kafka raises KafkaError POLICY_VIOLATION ("Broker: Policy
// violation"); a transactional producer must abort. A segment write that
// fails with ENOSPC (the disk itself is full) is answered the same way.

// Per-batch costs, on top of a batch's bytes in its segment file.
const (
	// IndexEntryBytes is a batch's entry in the index file beside its
	// segment (kfake persist.go indexEntrySize).
	IndexEntryBytes = 15
	// BatchMemoryBytes is the memory the broker holds per stored batch
	// for its in-memory index (kfake's batchMeta, 72 bytes, in a slice
	// grown by append): measured as ~87 bytes per batch with 8 million
	// one-record batches. The process's RSS grows by up to twice that
	// while the garbage collector catches up (468,473 batches: +78 MiB).
	BatchMemoryBytes = 88
	// BatchOverheadBytes is what a batch costs besides its own bytes.
	BatchOverheadBytes = IndexEntryBytes + BatchMemoryBytes
)

// DefaultEmbeddedMaxBytes is the embedded broker's default data budget,
// 256 MiB, sized for a laptop: the seeds' lessons store kilobytes, and a
// class that writes its own experiments has room for a quarter of a million
// 1 KB records. In the worst case — one-record batches of a few bytes,
// about 170 bytes each with their overhead — the budget holds 1.6 million
// batches whose index takes 138 MiB of memory, a quarter of the server's
// default 512 MiB soft memory limit, and the data directory stays under
// 256 MiB of disk.
const DefaultEmbeddedMaxBytes = 256 << 20

// DataBudget bounds what the embedded broker stores, counted as
// DataCost counts it. Writes past it are refused; nothing is deleted.
type DataBudget struct {
	// MaxBytes is the whole budget; zero takes DefaultEmbeddedMaxBytes,
	// a negative value means no budget.
	MaxBytes int64
	// ClientMaxBytes is each client address's share (by the address
	// its connections come from, like MaxConnectionsPerIP); zero takes
	// MaxBytes/8. Clients on this host — the dashboard itself, the
	// teacher's tools — have no share of their own: they may use the
	// whole budget. Clients on other hosts together may use at most
	// three quarters of it, so that a class filling its shares leaves
	// the teacher room for the lessons.
	ClientMaxBytes int64
	// StudentMaxBytes is each classroom student's share, by Kafka
	// identity rather than address: what is stored in their namespace
	// (StudentPrefix; their ACLs let them write nowhere else), from
	// whatever and however many addresses, this host's included. Zero
	// takes MaxBytes/16. Students count in the other hosts' three
	// quarters too, so the teacher's quarter is always kept.
	StudentMaxBytes int64
}

// DataCost is what stored data costs the budget: its segment bytes plus,
// per batch, its index entry on disk and its index entry in memory.
func DataCost(u kfake.StorageUsage) int64 {
	return u.SegmentBytes + u.Batches*BatchOverheadBytes
}

// withDefaults fills the zero fields.
func (b DataBudget) withDefaults() DataBudget {
	if b.MaxBytes == 0 {
		b.MaxBytes = DefaultEmbeddedMaxBytes
	}
	if b.ClientMaxBytes <= 0 {
		b.ClientMaxBytes = b.MaxBytes / 8
	}
	if b.StudentMaxBytes <= 0 {
		b.StudentMaxBytes = b.MaxBytes / 16
	}
	return b
}

// dataBudget is the budget's state: what each share (a client address on
// another host, a classroom student) stored, per topic, so that a topic
// deleted, trimmed or compacted gives its writers their share back. A
// student's share outlives a restart: seed counts what their topics store
// at start. Another host's share starts empty at each start (an address is
// no identity); what it stored still counts against the whole budget.
type dataBudget struct {
	limits DataBudget
	log    *throttledLog

	mu       sync.Mutex
	clients  map[string]int64              // client IP -> cost stored
	byTopic  map[[16]byte]map[string]int64 // topic ID -> client IP -> cost stored
	students int64                         // sum of clients
}

func newDataBudget(limits DataBudget, log *throttledLog) *dataBudget {
	return &dataBudget{limits: limits, log: log, clients: make(map[string]int64), byTopic: make(map[[16]byte]map[string]int64)}
}

// hooks are the kfake storage hooks that enforce the budget.
func (d *dataBudget) hooks() kfake.StorageHooks {
	return kfake.StorageHooks{Admit: d.admit, WriteFailed: d.writeFailed, TopicDeleted: d.topicDeleted, Freed: d.freed}
}

// admit refuses a batch that would take the store, the client's share or
// the other hosts' part past the budget, and counts the client's share of
// one it lets through.
func (d *dataBudget) admit(b kfake.ProducedBatch) (int16, string) {
	cost := int64(b.Bytes) + BatchOverheadBytes
	used := DataCost(b.Usage)
	if d.limits.MaxBytes > 0 && used+cost > d.limits.MaxBytes {
		d.log.warn("budget: full", "Kafka port: refused a write: the embedded broker's data budget is full",
			"remote", addrString(b.Remote), "topic", b.Topic, "used", used, "max", d.limits.MaxBytes)
		return kerr.PolicyViolation.Code, fmt.Sprintf(
			"The embedded broker's data budget is full (%s of %s used): nothing more is stored until a teacher deletes topics.",
			mib(used), mib(d.limits.MaxBytes))
	}
	ip, sameHost := addrIP(b.Remote, b.Local)
	student := cluster.StudentOwner(b.Topic)
	if student == "" && sameHost || d.limits.MaxBytes <= 0 {
		return 0, ""
	}
	key := ip // a share: a student's by identity, another host's by address
	if student != "" {
		key = studentShareKey + student
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch mine := d.clients[key]; {
	case student != "" && mine+cost > d.limits.StudentMaxBytes:
		d.log.warn("budget: student share", "Kafka port: refused a write: the student has used their share of the data budget",
			"student", student, "remote", ip, "topic", b.Topic, "stored", mine, "share", d.limits.StudentMaxBytes)
		return kerr.PolicyViolation.Code, fmt.Sprintf(
			"Student %s has used their share of the embedded broker's data budget (%s of %s): nothing more of theirs is stored until they delete records or topics.",
			student, mib(mine), mib(d.limits.StudentMaxBytes))
	case student == "" && mine+cost > d.limits.ClientMaxBytes:
		d.log.warn("budget: client share", "Kafka port: refused a write: the client has used its share of the data budget",
			"remote", ip, "topic", b.Topic, "stored", mine, "share", d.limits.ClientMaxBytes)
		return kerr.PolicyViolation.Code, fmt.Sprintf(
			"Client %s has used its share of the embedded broker's data budget (%s of %s): nothing more from it is stored until its topics are deleted.",
			ip, mib(mine), mib(d.limits.ClientMaxBytes))
	}
	if part := d.limits.MaxBytes / 4 * 3; d.students+cost > part {
		d.log.warn("budget: other hosts", "Kafka port: refused a write: clients on other hosts have used their part of the data budget",
			"remote", ip, "topic", b.Topic, "stored", d.students, "part", part)
		return kerr.PolicyViolation.Code, fmt.Sprintf(
			"Clients on other hosts have used their part of the embedded broker's data budget (%s of %s): nothing more from them is stored until topics are deleted.",
			mib(d.students), mib(part))
	}
	d.count(b.TopicID, key, cost)
	return 0, ""
}

// seed counts what a student's stored topic t costs in their share, as
// admit counted it while it was written (the transaction markers the
// broker wrote in it too), so that a restart neither gives the student a
// new share nor keeps what DeleteTopics or Freed later gives back. Start
// calls it for every stored topic (kfake's EachTopicStorage, on the
// broker's run goroutine) before the Kafka port accepts a client.
func (d *dataBudget) seed(t kfake.TopicStorage) {
	student := cluster.StudentOwner(t.Topic)
	cost := DataCost(t.Usage)
	if student == "" || cost <= 0 || d.limits.MaxBytes <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.count(t.ID, studentShareKey+student, cost)
}

// count adds cost to key's share, of topic id; d.mu must be held.
func (d *dataBudget) count(id [16]byte, key string, cost int64) {
	d.clients[key] += cost
	d.students += cost
	t := d.byTopic[id]
	if t == nil {
		t = make(map[string]int64)
		d.byTopic[id] = t
	}
	t[key] += cost
}

// studentShareKey starts a student's key among the shares, which no IP
// address starts with.
const studentShareKey = "student:"

// writeFailed gives back the share admit counted for a batch that was not
// stored, and answers a full disk as the budget does.
func (d *dataBudget) writeFailed(b kfake.ProducedBatch, err error) (int16, string) {
	if student := cluster.StudentOwner(b.Topic); student != "" {
		d.mu.Lock()
		d.release(b.TopicID, studentShareKey+student, int64(b.Bytes)+BatchOverheadBytes)
		d.mu.Unlock()
	} else if ip, sameHost := addrIP(b.Remote, b.Local); !sameHost {
		d.mu.Lock()
		d.release(b.TopicID, ip, int64(b.Bytes)+BatchOverheadBytes)
		d.mu.Unlock()
	}
	if errors.Is(err, syscall.ENOSPC) {
		d.log.warn("budget: disk full", "Kafka port: refused a write: no space left on the data directory's disk", "topic", b.Topic, "error", err)
		return kerr.PolicyViolation.Code, "The embedded broker's disk is full (no space left on device): nothing more is stored until space is freed."
	}
	d.log.warn("budget: write failed", "Kafka port: a write to the data directory failed", "topic", b.Topic, "error", err)
	return kerr.KafkaStorageError.Code, ""
}

// topicDeleted gives every client its share of the topic back.
func (d *dataBudget) topicDeleted(_ string, id [16]byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for ip, cost := range d.byTopic[id] {
		d.release(id, ip, cost)
	}
	delete(d.byTopic, id)
}

// freed gives back the cost of what retention, compaction or
// DeleteRecords removed from a topic, to the shares that stored it, in
// proportion to what each stored of the topic. What the broker itself
// wrote there (transaction markers) is not told apart: it frees a little
// of the writers' shares too, never more than they stored.
func (d *dataBudget) freed(_ string, id [16]byte, u kfake.StorageUsage) {
	cost := DataCost(u)
	if cost <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.byTopic[id]
	var stored int64
	for _, c := range t {
		stored += c
	}
	if stored <= 0 {
		return
	}
	cost = min(cost, stored)
	for key, c := range t {
		d.release(id, key, cost*c/stored) // both at most the budget: the product fits
	}
}

// release takes cost off ip's share of topic id; d.mu must be held.
func (d *dataBudget) release(id [16]byte, ip string, cost int64) {
	if t := d.byTopic[id]; t != nil {
		if t[ip] -= cost; t[ip] <= 0 {
			delete(t, ip)
		}
	}
	if d.clients[ip] -= cost; d.clients[ip] <= 0 {
		delete(d.clients, ip)
	}
	d.students -= cost
}

// clientShare is what client ip has stored.
func (d *dataBudget) clientShare(ip string) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.clients[ip]
}

// status is the budget as the page shows it, for the store's usage u.
func (d *dataBudget) status(u kfake.StorageUsage) cluster.BudgetStatus {
	used := DataCost(u)
	s := cluster.BudgetStatus{UsedBytes: used, MaxBytes: d.limits.MaxBytes, SegmentBytes: u.SegmentBytes, Batches: u.Batches}
	if d.limits.MaxBytes > 0 {
		s.ClientMaxBytes, s.StudentMaxBytes = d.limits.ClientMaxBytes, d.limits.StudentMaxBytes
		s.Full = used+min(cluster.FullMarginBytes, d.limits.MaxBytes/16) > d.limits.MaxBytes
	}
	return s
}

// addrIP is the IP of remote and whether it is this host talking to
// itself (the same address on both ends, as remoteIP says of a conn).
func addrIP(remote, local net.Addr) (ip string, sameHost bool) {
	r, ok1 := remote.(*net.TCPAddr)
	l, ok2 := local.(*net.TCPAddr)
	if !ok1 || !ok2 {
		return addrString(remote), true
	}
	return r.IP.String(), r.IP.Equal(l.IP)
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// mib formats n bytes in MiB with one decimal, as the refusals say it.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
