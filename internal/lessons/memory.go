package lessons

import (
	"slices"
	"sync"
)

// memory is what a run's later steps compare against: which producer
// crashed with which epoch, who began each transaction, which producer ids
// and key partitions earlier steps saw, which brokers are stopped. It is
// safe for concurrent use; reset empties it.
type memory struct {
	mu sync.Mutex
	// crashedEpoch is the epoch of a transactional.id's producer that
	// crashed or was fenced: a later epoch proves the fence.
	crashedEpoch map[string]int16
	// began records which process began each transactional.id last.
	began map[string]beginRecord
	// producerIDs are the idempotent producers' ids seen so far.
	producerIDs []int64
	// keyPartition is where each key's records went.
	keyPartition map[string]int32
	// stopped are the brokers StopFollowers took down.
	stopped []int32
	// held are, per topic, the offsets of partition 0 that held a record
	// or marker when a step last read its log (ReadLog): what a cleaner
	// pass is compared with.
	held map[string][]int64
}

type beginRecord struct {
	process string
	id      int64
	epoch   int16
}

func (m *memory) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.crashedEpoch, m.began, m.keyPartition = map[string]int16{}, map[string]beginRecord{}, map[string]int32{}
	m.producerIDs, m.stopped = nil, nil
	m.held = map[string][]int64{}
}

// sawHeld records the offsets of topic's partition 0 that held something.
func (m *memory) sawHeld(topic string, offsets []int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.held[topic] = offsets
}

// heldOffsets are the offsets sawHeld last recorded for topic, and
// whether any step recorded them.
func (m *memory) heldOffsets(topic string) ([]int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.held[topic]
	return o, ok
}

func (m *memory) crashed(id string, epoch int16) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.crashedEpoch[id] = epoch
}

func (m *memory) crashedAt(id string) (int16, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.crashedEpoch[id]
	return e, ok
}

// begin records that process began id and returns who began it before.
func (m *memory) begin(id string, now beginRecord) (beginRecord, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	prev, ok := m.began[id]
	m.began[id] = now
	return prev, ok
}

// sawProducer records a producer id and reports whether it is new.
func (m *memory) sawProducer(id int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := slices.Contains(m.producerIDs, id)
	m.producerIDs = append(m.producerIDs, id)
	return !seen
}

func (m *memory) keyWentTo(key string, partition int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keyPartition[key] = partition
}

func (m *memory) partitionOf(key string) (int32, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.keyPartition[key]
	return p, ok
}

func (m *memory) setStopped(ids []int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopped = slices.Clone(ids)
}

func (m *memory) stoppedBrokers() []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.stopped)
}
