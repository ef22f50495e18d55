package lessons

import "strings"

// Fact names something a step observes, for an Expect to check. A fact
// ending in ":" takes an Arg (FactCount counts the records whose value is
// the Arg). Each action's Facts lists those it observes; TestLessonData
// fails on a check of a fact its action does not observe.
type Fact string

// Name is the fact's name without the ":" that marks an Arg.
func (f Fact) Name() string { return strings.TrimSuffix(string(f), ":") }

// The facts the actions observe, by what they measure.
const (
	// What was created or written.
	FactCreated       Fact = "created"       // topics created
	FactAcknowledged  Fact = "acknowledged"  // records the broker acknowledged
	FactOffsets       Fact = "offsets"       // their offsets ("unknown" with acks=0)
	FactErrors        Fact = "errors"        // records that failed
	FactAckLost       Fact = "ackLost"       // a lost ACK made the producer retry
	FactProducerID    Fact = "producerId"    // the producer got a producer id ("assigned", "yes")
	FactNewProducerID Fact = "newProducerId" // one no earlier step of the run saw
	FactPartitions    Fact = "partitions"    // how many partitions the records went to
	FactInOrder       Fact = "inOrder"       // offsets rise in send order on each partition
	FactRefused       Fact = "refused"       // the producer refused its settings
	// FactErrorMentions: the error is Arg — for a refusal, the catalogue
	// sentence Arg; for records, every failed one failed with the Kafka
	// error Arg (NOT_ENOUGH_REPLICAS). Read from the structured outcome.
	FactErrorMentions Fact = "errorMentions:"

	// The order processor.
	FactCrashed   Fact = "crashed"   // the process was killed
	FactProcessed Fact = "processed" // order ids processed, in order
	FactRetried   Fact = "retried"   // init_transactions() retried after CONCURRENT_TRANSACTIONS

	// Transactions step by step.
	FactFencedPrevious Fact = "fencedPrevious" // the epoch rose above the other process's
	FactSameProducerID Fact = "sameProducerId" // a fence keeps the producer id
	FactFenced         Fact = "fenced"         // this producer was fenced
	FactError          Fact = "error"          // the Kafka error of the first failed write ("none")
	FactEnded          Fact = "ended"          // "committed" or "aborted"

	// What consumers receive and what the log holds.
	FactRecords         Fact = "records"         // "offset: value" a consumer received
	FactTotal           Fact = "total"           // how many records it received
	FactCount           Fact = "count:"          // records whose value is Arg
	FactKeyOrder        Fact = "keyOrder:"       // the values of key Arg, in offset order
	FactShape           Fact = "shape"           // each offset as "offset:txn" or "offset:MARKER"
	FactMarkers         Fact = "markers"         // "offset MARKER", in offset order
	FactAborted         Fact = "aborted"         // offsets of aborted records
	FactOpen            Fact = "open"            // offsets of records in open transactions
	FactLSO             Fact = "lso"             // last stable offset
	FactHW              Fact = "hw"              // high watermark
	FactLogStart        Fact = "logStart"        // log start offset
	FactReadCommitted   Fact = "readCommitted"   // offsets a read_committed consumer receives
	FactReadUncommitted Fact = "readUncommitted" // offsets a read_uncommitted consumer receives
	FactPID             Fact = "pid:"            // records with value Arg carry a producer id
	FactSequences       Fact = "sequences:"      // their sequence numbers
	FactGaps            Fact = "gaps"            // runs of gaps with their reason: "1-3 compacted, 6 compacted"
	FactLatest          Fact = "latest"          // the newest value of every key: "apple=apple 130 · kiwi=<null>"

	// What the log cleaner, retention and DeleteRecords took.
	FactConfigs Fact = "configs" // the topic configurations set, "name=value, ..."
	FactRemoved Fact = "removed" // offsets a cleaner pass removed
	// A group's consumer resuming (ReadAsGroup).
	FactOutOfRange Fact = "outOfRange" // its committed offset was out of range (below the log start)
	FactStart      Fact = "start"      // where it started reading
	FactLost       Fact = "lost"       // offsets between its committed offset and its start, never read
	FactNext       Fact = "next"       // the offset it committed afterwards

	// A consumer's business logic over a replay (ApplyPayments).
	FactDeliveries Fact = "deliveries" // events handed to the logic
	FactSkipped    Fact = "skipped"    // events the processed-id store skipped
	FactBalance    Fact = "balance"    // the account after both deliveries
	FactStatus     Fact = "status:"    // order Arg's status

	// Groups, transactions, topics.
	FactCommitted        Fact = "committed"        // the group's committed offset
	FactLogEnd           Fact = "logEnd"           // the partition's log end offset
	FactLag              Fact = "lag"              // log end minus committed
	FactState            Fact = "state"            // group or transaction state, as Kafka spells it
	FactLists            Fact = "lists:"           // the transaction lists topic Arg's partition 0
	FactOffsetsPartition Fact = "offsetsPartition" // ... and a __consumer_offsets partition
	FactEpochBumped      Fact = "epochBumped"      // its epoch is above the crashed producer's
	FactTimeoutMs        Fact = "timeoutMs"        // its transaction.timeout.ms
	FactReplicas         Fact = "replicas"         // partition 0's replicas
	FactISR              Fact = "isr"              // its in-sync replicas
	FactLeader           Fact = "leader"           // it has a leader
	FactStopped          Fact = "stopped"          // followers stopped
	FactLeaderKept       Fact = "leaderKept"       // the leader stayed the same broker
	FactISRBefore        Fact = "isrBefore"        // ISR size when the followers start
	FactISRFull          Fact = "isrFull"          // the ISR holds every replica again

	// Share groups.
	FactHeld        Fact = "held"        // records a share consumer holds, "offset/delivery count"
	FactStartOffset Fact = "startOffset" // the share group's START-OFFSET (SPSO)
)
