package embedded

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzKafkaFrames writes random byte streams to the Kafka port of a running
// embedded broker — through the guard, as any client would — and checks
// after each that the broker still answers a real request and can still
// walk the records it stored. The broker runs in the fuzzing process, so a
// panic in kfake on anything the guard let through ends the fuzz run with
// the input that caused it. The corpus starts from the known crashes'
// reproductions and from valid requests of every API key the broker
// serves, so the fuzzer mutates realistic requests too; the CRC of every
// produced record batch is recomputed before sending, as a hostile client
// would, so that mutated records reach kfake's storage rather than stopping
// at its CRC check.
func FuzzKafkaFrames(f *testing.F) {
	c, b, err := start(Config{
		KafkaAddr: "127.0.0.1:0",
		// Short enough that a stalled input (and a fetch that waits,
		// which the guard caps at this) costs little, long enough that
		// a loaded machine does not time real requests out.
		Limits: PortLimits{MaxRequestBytes: 1 << 20, RequestTimeout: time.Second},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(c.Close)
	addr := c.Brokers()[0]
	for _, seed := range hostileStreams() {
		f.Add(seed)
	}
	for _, seed := range validStreams(b.port.api) {
		f.Add(seed)
	}
	alive := &liveness{addr: addr}
	f.Cleanup(alive.close)
	f.Fuzz(func(t *testing.T, stream []byte) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.Write(withValidCRCs(stream)); err != nil && !isConnReset(err) {
			t.Fatal(err)
		}
		// Half-close: the guard sees EOF after the stream and closes,
		// once kfake has taken every whole request in it.
		_ = conn.(*net.TCPConn).CloseWrite()
		// A request kfake makes wait (a group join) keeps the
		// connection; a second is enough for the rest to be handled.
		_ = conn.SetReadDeadline(time.Now().Add(time.Second))
		_, _ = io.Copy(io.Discard, conn)
		if err := alive.check(); err != nil {
			t.Fatalf("the broker stopped answering after %x: %v", stream, err)
		}
	})
}

// withValidCRCs returns stream with the length and CRC of every record
// batch in its produce requests recomputed.
func withValidCRCs(stream []byte) []byte {
	stream = append([]byte(nil), stream...)
	for rest := stream; len(rest) >= 4; {
		n := int(binary.BigEndian.Uint32(rest))
		if n < 0 || n > len(rest)-4 {
			break
		}
		frame := rest[:4+n]
		rest = rest[4+n:]
		r := kbin.Reader{Src: frame[4:]}
		key, version := r.Int16(), r.Int16()
		r.Int32()
		r.NullableString()
		if !r.Ok() || key != int16(kmsg.Produce) || version < 0 {
			continue
		}
		req := kmsg.NewPtrProduceRequest()
		req.SetVersion(version)
		if req.IsFlexible() {
			kmsg.SkipTags(&r)
		}
		if req.ReadFrom(r.Src) != nil {
			continue
		}
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				// Records aliases frame.
				if b := p.Records; len(b) >= 21 {
					binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
					binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32c))
				}
			}
		}
	}
	return stream
}

// liveness asks the broker for its API versions over one raw connection,
// redialled if it was closed, then for offsets by timestamp in topic "t",
// which makes kfake walk the records it stored there.
type liveness struct {
	addr string
	conn net.Conn
	corr int32
}

func (l *liveness) check() error {
	for attempt := 0; ; attempt++ {
		err := l.ask()
		if err == nil || attempt == 1 {
			return err
		}
		l.close() // an idle close, say: one fresh connection must work
	}
}

func (l *liveness) ask() error {
	if l.conn == nil {
		conn, err := net.DialTimeout("tcp", l.addr, 5*time.Second)
		if err != nil {
			return err
		}
		l.conn = conn
	}
	l.corr++
	if err := l.conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return err
	}
	if _, err := l.conn.Write(appendRequestFrame(nil, kmsg.NewPtrApiVersionsRequest(), l.corr, "liveness")); err != nil {
		return err
	}
	resp, corr, err := readResponse(l.conn, kmsg.NewPtrApiVersionsRequest())
	if err != nil {
		return err
	}
	if corr != l.corr || len(resp.(*kmsg.ApiVersionsResponse).ApiKeys) == 0 {
		return errors.New("a wrong answer to ApiVersions")
	}
	// One request per timestamp: Kafka refuses a partition listed twice.
	for _, ts := range []int64{-3, 1001} { // the latest timestamp; by timestamp
		list := kmsg.NewPtrListOffsetsRequest()
		list.Version = 8
		lt := kmsg.NewListOffsetsRequestTopic()
		lt.Topic = "t"
		for p := range int32(3) {
			lp := kmsg.NewListOffsetsRequestTopicPartition()
			lp.Partition, lp.Timestamp = p, ts
			lt.Partitions = append(lt.Partitions, lp)
		}
		list.Topics = append(list.Topics, lt)
		l.corr++
		if _, err := l.conn.Write(appendRequestFrame(nil, list, l.corr, "liveness")); err != nil {
			return err
		}
		// Error codes are answers (the fuzzer may have deleted
		// "t"); only a broker that stops answering fails.
		if _, corr, err := readResponse(l.conn, list); err != nil || corr != l.corr {
			return fmt.Errorf("ListOffsets: corr %d, %v", corr, err)
		}
	}
	return nil
}

func (l *liveness) close() {
	if l.conn != nil {
		l.conn.Close()
		l.conn = nil
	}
}

// readResponse reads one response to req (header v0, or v1 for flexible
// versions other than ApiVersions) and returns it with its correlation id.
func readResponse(r io.Reader, req kmsg.Request) (kmsg.Response, int32, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, 0, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n < 4 || n > 64<<20 {
		return nil, 0, errors.New("implausible response size")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, 0, err
	}
	corr := int32(binary.BigEndian.Uint32(body))
	body = body[4:]
	resp := req.ResponseKind()
	if resp.IsFlexible() && req.Key() != int16(kmsg.ApiVersions) {
		rest, ok := skipTags(body)
		if !ok {
			return nil, corr, errors.New("bad response header")
		}
		body = rest
	}
	return resp, corr, resp.ReadFrom(body)
}

func isConnReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}

// hostileStreams are the known crashes' reproductions and their neighbours.
func hostileStreams() [][]byte {
	frame := func(body []byte) []byte {
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
	}
	header := func(key, version int16) []byte {
		b := binary.BigEndian.AppendUint16(nil, uint16(key))
		b = binary.BigEndian.AppendUint16(b, uint16(version))
		b = binary.BigEndian.AppendUint32(b, 1)
		return binary.BigEndian.AppendUint16(b, 0xffff) // null client id
	}
	garbage := make([]byte, 50)
	for i := range garbage {
		garbage[i] = byte(i*73 + 41)
	}
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			panic(err)
		}
		return b
	}
	return [][]byte{
		unhex("0000000a270f000000000001ffff"),   // API key 9999: the one packet that panicked kfake
		frame(header(-1, 0)),                    // API key -1
		frame(header(100, 0)),                   // API key 100
		frame(header(18, -1)),                   // ApiVersions v-1
		frame(header(18, 300)),                  // ApiVersions newer than the broker's
		frame(header(3, 99)),                    // Metadata v99
		frame(append(header(0, 9), 0xff, 0xff)), // Produce cut short
		garbage,                                 // 50 bytes of garbage
		frame(garbage),                          // a 50-byte garbage frame
		[]byte("GET / HTTP/1.1\r\nHost: 127.0.0.1:9092\r\n\r\n"),
		unhex("40000000"),                 // a 1 GiB size prefix alone
		unhex("ffffffff0000"),             // a negative size
		unhex("00000005" + "0001000000"),  // too short for a header
		unhex("00000064" + "0012000000"),  // a truncated frame
		unhex("160301020001000000"),       // a TLS ClientHello's start
		append(frame(header(18, 0)), 0x7), // ApiVersions, then one stray byte
		lyingRecordLength(),
	}
}

// lyingRecordLength creates topic "t" and produces to it a batch whose
// first record claims 48 bytes and has 8, with the batch's CRC right: kfake
// stores it and panics when a search by timestamp walks it.
func lyingRecordLength() []byte {
	create := kmsg.NewPtrCreateTopicsRequest()
	create.Version = 5
	ct := kmsg.NewCreateTopicsRequestTopic()
	ct.Topic, ct.NumPartitions, ct.ReplicationFactor = "t", 2, 1
	create.Topics = append(create.Topics, ct)
	produce := kmsg.NewPtrProduceRequest()
	produce.Version, produce.Acks = 9, 1
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = "t"
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Records = recordBatch(-1, -1, false, []byte("k"), []byte("v"))
	pp.Records[61] = 0x60 // the first record's length: zigzag varint 48
	pt.Partitions = append(pt.Partitions, pp)
	produce.Topics = append(produce.Topics, pt)
	return appendRequestFrame(appendRequestFrame(nil, create, 1, "liar"), produce, 2, "liar")
}

// validStreams are well-formed requests: every key the broker serves at
// each version it serves with default fields, and realistic requests of
// the kinds the dashboard and the students' clients send.
func validStreams(api apiRanges) [][]byte {
	var out [][]byte
	for key, vr := range api {
		for v := vr.min; v <= vr.max; v++ {
			req := kmsg.RequestForKey(key)
			req.SetVersion(v)
			out = append(out, appendRequestFrame(nil, req, int32(v), "fuzz"))
		}
	}
	for i, req := range realisticRequests() {
		if vr, ok := api[req.Key()]; ok {
			for _, v := range []int16{vr.min, (vr.min + vr.max) / 2, vr.max} {
				req.SetVersion(v)
				out = append(out, appendRequestFrame(nil, req, int32(i), "fuzz"))
			}
		}
	}
	return out
}

// realisticRequests are requests with their fields filled in, on a topic
// "t" and a group "g".
func realisticRequests() []kmsg.Request {
	const topic, group, txn = "t", "g", "tx"
	var reqs []kmsg.Request

	create := kmsg.NewPtrCreateTopicsRequest()
	ct := kmsg.NewCreateTopicsRequestTopic()
	ct.Topic, ct.NumPartitions, ct.ReplicationFactor = topic, 2, 1
	create.Topics = append(create.Topics, ct)
	reqs = append(reqs, create)

	meta := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	meta.Topics = append(meta.Topics, mt)
	reqs = append(reqs, meta)

	for _, acks := range []int16{0, 1, -1} {
		produce := kmsg.NewPtrProduceRequest()
		produce.Acks, produce.TimeoutMillis = acks, 1000
		pt := kmsg.NewProduceRequestTopic()
		pt.Topic = topic
		pp := kmsg.NewProduceRequestTopicPartition()
		pp.Records = recordBatch(-1, -1, false, []byte("k"), []byte("v"))
		pt.Partitions = append(pt.Partitions, pp)
		produce.Topics = append(produce.Topics, pt)
		reqs = append(reqs, produce)
	}
	txProduce := kmsg.NewPtrProduceRequest()
	txProduce.TransactionID, txProduce.Acks = kmsg.StringPtr(txn), -1
	tpt := kmsg.NewProduceRequestTopic()
	tpt.Topic = topic
	tpp := kmsg.NewProduceRequestTopicPartition()
	tpp.Records = recordBatch(1, 0, true, nil, []byte("tx"))
	tpt.Partitions = append(tpt.Partitions, tpp)
	txProduce.Topics = append(txProduce.Topics, tpt)
	reqs = append(reqs, txProduce)

	fetch := kmsg.NewPtrFetchRequest()
	fetch.MaxWaitMillis, fetch.MaxBytes = 10, 1<<20
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic = topic
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.PartitionMaxBytes = 1 << 20
	ft.Partitions = append(ft.Partitions, fp)
	fetch.Topics = append(fetch.Topics, ft)
	reqs = append(reqs, fetch)

	list := kmsg.NewPtrListOffsetsRequest()
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = topic
	lp := kmsg.NewListOffsetsRequestTopicPartition()
	lp.Timestamp = -1
	lt.Partitions = append(lt.Partitions, lp)
	list.Topics = append(list.Topics, lt)
	reqs = append(reqs, list)

	find := kmsg.NewPtrFindCoordinatorRequest()
	find.CoordinatorKey, find.CoordinatorKeys = group, []string{group}
	reqs = append(reqs, find)

	join := kmsg.NewPtrJoinGroupRequest()
	join.Group, join.SessionTimeoutMillis, join.RebalanceTimeoutMillis, join.ProtocolType = group, 6000, 1000, "consumer"
	jp := kmsg.NewJoinGroupRequestProtocol()
	jp.Name, jp.Metadata = "range", []byte{0, 1, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 0}
	join.Protocols = append(join.Protocols, jp)
	reqs = append(reqs, join)

	syncg := kmsg.NewPtrSyncGroupRequest()
	syncg.Group, syncg.MemberID, syncg.Generation = group, "m", 1
	sa := kmsg.NewSyncGroupRequestGroupAssignment()
	sa.MemberID, sa.MemberAssignment = "m", []byte{0, 1, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}
	syncg.GroupAssignment = append(syncg.GroupAssignment, sa)
	reqs = append(reqs, syncg)

	hb := kmsg.NewPtrHeartbeatRequest()
	hb.Group, hb.MemberID, hb.Generation = group, "m", 1
	reqs = append(reqs, hb)

	leave := kmsg.NewPtrLeaveGroupRequest()
	leave.Group, leave.MemberID = group, "m"
	lm := kmsg.NewLeaveGroupRequestMember()
	lm.MemberID = "m"
	leave.Members = append(leave.Members, lm)
	reqs = append(reqs, leave)

	commit := kmsg.NewPtrOffsetCommitRequest()
	commit.Group, commit.Generation, commit.MemberID = group, -1, ""
	oct := kmsg.NewOffsetCommitRequestTopic()
	oct.Topic = topic
	ocp := kmsg.NewOffsetCommitRequestTopicPartition()
	ocp.Offset = 1
	oct.Partitions = append(oct.Partitions, ocp)
	commit.Topics = append(commit.Topics, oct)
	reqs = append(reqs, commit)

	offsets := kmsg.NewPtrOffsetFetchRequest()
	offsets.Group = group
	oft := kmsg.NewOffsetFetchRequestTopic()
	oft.Topic, oft.Partitions = topic, []int32{0}
	offsets.Topics = append(offsets.Topics, oft)
	ofg := kmsg.NewOffsetFetchRequestGroup()
	ofg.Group = group
	ofgt := kmsg.NewOffsetFetchRequestGroupTopic()
	ofgt.Topic, ofgt.Partitions = topic, []int32{0}
	ofg.Topics = append(ofg.Topics, ofgt)
	offsets.Groups = append(offsets.Groups, ofg)
	reqs = append(reqs, offsets)

	initPID := kmsg.NewPtrInitProducerIDRequest()
	initPID.TransactionalID, initPID.TransactionTimeoutMillis = kmsg.StringPtr(txn), 60000
	reqs = append(reqs, initPID)

	addParts := kmsg.NewPtrAddPartitionsToTxnRequest()
	addParts.TransactionalID, addParts.ProducerID = txn, 1
	at := kmsg.NewAddPartitionsToTxnRequestTopic()
	at.Topic, at.Partitions = topic, []int32{0}
	addParts.Topics = append(addParts.Topics, at)
	atx := kmsg.NewAddPartitionsToTxnRequestTransaction()
	atx.TransactionalID, atx.ProducerID = txn, 1
	att := kmsg.NewAddPartitionsToTxnRequestTransactionTopic()
	att.Topic, att.Partitions = topic, []int32{0}
	atx.Topics = append(atx.Topics, att)
	addParts.Transactions = append(addParts.Transactions, atx)
	reqs = append(reqs, addParts)

	addOffsets := kmsg.NewPtrAddOffsetsToTxnRequest()
	addOffsets.TransactionalID, addOffsets.ProducerID, addOffsets.Group = txn, 1, group
	reqs = append(reqs, addOffsets)

	txnCommit := kmsg.NewPtrTxnOffsetCommitRequest()
	txnCommit.TransactionalID, txnCommit.Group, txnCommit.ProducerID, txnCommit.Generation = txn, group, 1, -1
	tct := kmsg.NewTxnOffsetCommitRequestTopic()
	tct.Topic = topic
	tcp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
	tcp.Offset = 1
	tct.Partitions = append(tct.Partitions, tcp)
	txnCommit.Topics = append(txnCommit.Topics, tct)
	reqs = append(reqs, txnCommit)

	for _, commit := range []bool{true, false} {
		end := kmsg.NewPtrEndTxnRequest()
		end.TransactionalID, end.ProducerID, end.Commit = txn, 1, commit
		reqs = append(reqs, end)
	}

	describe := kmsg.NewPtrDescribeConfigsRequest()
	dr := kmsg.NewDescribeConfigsRequestResource()
	dr.ResourceType, dr.ResourceName = kmsg.ConfigResourceTypeTopic, topic
	describe.Resources = append(describe.Resources, dr)
	reqs = append(reqs, describe)

	alter := kmsg.NewPtrIncrementalAlterConfigsRequest()
	ar := kmsg.NewIncrementalAlterConfigsRequestResource()
	ar.ResourceType, ar.ResourceName = kmsg.ConfigResourceTypeTopic, topic
	ac := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	ac.Name, ac.Value = "retention.ms", kmsg.StringPtr("60000")
	ar.Configs = append(ar.Configs, ac)
	alter.Resources = append(alter.Resources, ar)
	reqs = append(reqs, alter)

	del := kmsg.NewPtrDeleteRecordsRequest()
	dt := kmsg.NewDeleteRecordsRequestTopic()
	dt.Topic = topic
	dp := kmsg.NewDeleteRecordsRequestTopicPartition()
	dp.Offset = 1
	dt.Partitions = append(dt.Partitions, dp)
	del.Topics = append(del.Topics, dt)
	reqs = append(reqs, del)

	parts := kmsg.NewPtrCreatePartitionsRequest()
	cpt := kmsg.NewCreatePartitionsRequestTopic()
	cpt.Topic, cpt.Count = topic, 3
	parts.Topics = append(parts.Topics, cpt)
	reqs = append(reqs, parts)

	groups := kmsg.NewPtrDescribeGroupsRequest()
	groups.Groups = []string{group}
	reqs = append(reqs, groups, kmsg.NewPtrListGroupsRequest())

	producers := kmsg.NewPtrDescribeProducersRequest()
	dpt := kmsg.NewDescribeProducersRequestTopic()
	dpt.Topic, dpt.Partitions = topic, []int32{0}
	producers.Topics = append(producers.Topics, dpt)
	reqs = append(reqs, producers)

	txns := kmsg.NewPtrDescribeTransactionsRequest()
	txns.TransactionalIDs = []string{txn}
	reqs = append(reqs, txns, kmsg.NewPtrListTransactionsRequest())

	cgh := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	cgh.Group, cgh.MemberID, cgh.RebalanceTimeoutMillis, cgh.SubscribedTopicNames = group, "m848", 1000, []string{topic}
	reqs = append(reqs, cgh)

	sgh := kmsg.NewPtrShareGroupHeartbeatRequest()
	sgh.GroupID, sgh.MemberID, sgh.SubscribedTopicNames = "sg", "m", []string{topic}
	reqs = append(reqs, sgh)

	deleteTopics := kmsg.NewPtrDeleteTopicsRequest()
	deleteTopics.TopicNames = []string{"other"}
	dtt := kmsg.NewDeleteTopicsRequestTopic()
	dtt.Topic = kmsg.StringPtr("other")
	deleteTopics.Topics = append(deleteTopics.Topics, dtt)
	reqs = append(reqs, deleteTopics)
	return reqs
}

// recordBatch is a v2 record batch with a valid CRC of two records, the
// second written 5 ms after the first: a search by timestamp walks past the
// first to find the second, so mutating its length reaches kfake's record
// walk.
func recordBatch(producerID int64, epoch int16, transactional bool, key, value []byte) []byte {
	var records []byte
	for i := range int32(2) {
		rec := kmsg.NewRecord()
		rec.Key, rec.Value = key, value
		rec.OffsetDelta, rec.TimestampDelta64 = i, 5*int64(i)
		rec.Length = int32(len(rec.AppendTo(nil)) - 1) // less the 1-byte length it was written with
		records = rec.AppendTo(records)
	}
	rb := kmsg.RecordBatch{
		PartitionLeaderEpoch: -1,
		Magic:                2,
		LastOffsetDelta:      1,
		FirstTimestamp:       1000,
		MaxTimestamp:         1005,
		ProducerID:           producerID,
		ProducerEpoch:        epoch,
		FirstSequence:        0,
		NumRecords:           2,
		Records:              records,
	}
	if producerID < 0 {
		rb.FirstSequence = -1
	}
	if transactional {
		rb.Attributes = 0x10
	}
	raw := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[8:12], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:21], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}
