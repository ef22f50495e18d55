package kfake

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Restart memory (Offset Lab patch, see PATCHES.md).
//
// Loading a partition streams its segment files: each is read batch by
// batch through a segmentReadBuffer-sized buffer, checking every batch's
// CRC as its bytes pass and keeping only the batch header (and, for a
// control batch, its first controlRecordPrefix bytes of records, where the
// COMMIT/ABORT key is). Partitions load on at most loadWorkers goroutines.
// So restart holds at most
//
//	loadWorkers × (segmentReadBuffer + indexReadBuffer + controlRecordPrefix)
//
// bytes of file data at a time (4 × 68.25 KiB), whatever the size of a
// segment, a batch or the data directory, on top of the in-memory index the
// running broker keeps anyway (one batchMeta per batch) and, during a full
// replay, one entry per producer with an open transaction. Upstream read
// every segment whole (os.ReadFile), on one goroutine per partition, and a
// full replay kept every batch of the partition, records included, until
// the partition was loaded.

const (
	segmentReadBuffer   = 64 << 10
	indexReadBuffer     = 4 << 10
	controlRecordPrefix = 256
)

// loadWorkers is how many partitions load at once: enough to overlap
// reads with decoding, few enough that restart memory does not grow with
// the number of partitions.
func loadWorkers() int { return min(runtime.GOMAXPROCS(0), 4) }

// errCorruptBatch ends a segment scan at a batch that is cut short, too
// large to be a batch, or fails its CRC; the file is truncated there.
var errCorruptBatch = errors.New("corrupt batch")

// segmentScanner reads a segment file one RecordBatch at a time.
type segmentScanner struct {
	r      *bufio.Reader
	head   [batchHeaderSize]byte
	prefix []byte // the control batch's first records bytes, reused
}

// next reads the batch at the scanner's position and returns its header
// as a RecordBatch whose Records holds at most controlRecordPrefix bytes
// (and only for a control batch), and its size on disk. It returns io.EOF
// at a clean end of file and errCorruptBatch (or a read error) otherwise.
func (s *segmentScanner) next() (kmsg.RecordBatch, int, error) {
	var rb kmsg.RecordBatch
	if _, err := io.ReadFull(s.r, s.head[:12]); err != nil {
		if err == io.EOF {
			return rb, 0, io.EOF
		}
		return rb, 0, errCorruptBatch
	}
	length := int64(int32(binary.BigEndian.Uint32(s.head[8:12])))
	if length < 0 || length > 1<<30 || 12+length < batchHeaderSize {
		return rb, 0, errCorruptBatch
	}
	size := int(12 + length)
	if _, err := io.ReadFull(s.r, s.head[12:]); err != nil {
		return rb, 0, errCorruptBatch
	}
	h := s.head[:]
	rb.FirstOffset = int64(binary.BigEndian.Uint64(h[0:]))
	rb.Length = int32(length)
	rb.PartitionLeaderEpoch = int32(binary.BigEndian.Uint32(h[12:]))
	rb.Magic = int8(h[16])
	rb.CRC = int32(binary.BigEndian.Uint32(h[17:]))
	rb.Attributes = int16(binary.BigEndian.Uint16(h[21:]))
	rb.LastOffsetDelta = int32(binary.BigEndian.Uint32(h[23:]))
	rb.FirstTimestamp = int64(binary.BigEndian.Uint64(h[27:]))
	rb.MaxTimestamp = int64(binary.BigEndian.Uint64(h[35:]))
	rb.ProducerID = int64(binary.BigEndian.Uint64(h[43:]))
	rb.ProducerEpoch = int16(binary.BigEndian.Uint16(h[51:]))
	rb.FirstSequence = int32(binary.BigEndian.Uint32(h[53:]))
	rb.NumRecords = int32(binary.BigEndian.Uint32(h[57:]))

	crc := crc32.Update(0, crc32c, h[21:])
	rest := size - batchHeaderSize
	if rb.Attributes&0x0020 != 0 {
		n := min(rest, controlRecordPrefix)
		s.prefix = append(s.prefix[:0], make([]byte, n)...)
		if _, err := io.ReadFull(s.r, s.prefix); err != nil {
			return rb, 0, errCorruptBatch
		}
		crc = crc32.Update(crc, crc32c, s.prefix)
		rb.Records = s.prefix
		rest -= n
	}
	for rest > 0 {
		chunk, err := s.r.Peek(min(rest, s.r.Size()))
		if len(chunk) == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return rb, 0, errCorruptBatch
		}
		crc = crc32.Update(crc, crc32c, chunk)
		_, _ = s.r.Discard(len(chunk))
		rest -= len(chunk)
	}
	if uint32(rb.CRC) != crc {
		return rb, 0, errCorruptBatch
	}
	return rb, size, nil
}

// loadSegmentBatches streams the batches of a segment file (.dat) and
// their metadata from the parallel index file (.idx), builds the segment's
// in-memory index and calls each, if not nil, for every batch in order.
// The batch passed to each holds no records (a control batch: the first
// controlRecordPrefix bytes of them) and is valid only during the call.
// A batch cut short or failing its CRC ends the segment: the file is
// truncated there, and so is an index with entries past it.
func (c *Cluster) loadSegmentBatches(pd *partData, fsys fs, pdir string, base int64, each func(*partBatch)) error {
	segPath := filepath.Join(pdir, segmentFileName(base))
	f, err := fsys.OpenFile(segPath, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var idx *bufio.Reader
	if idxF, err := fsys.OpenFile(filepath.Join(pdir, indexFileName(base)), os.O_RDONLY, 0); err == nil {
		defer idxF.Close()
		idx = bufio.NewReaderSize(idxF, indexReadBuffer)
	}
	var lastModified, fileSize int64
	if info, err := fsys.Stat(segPath); err == nil {
		lastModified = info.ModTime().UnixMilli()
		fileSize = info.Size()
	}

	var seg *segmentInfo
	for i := range pd.segments {
		if pd.segments[i].base == base {
			seg = &pd.segments[i]
			seg.lastModified = lastModified
			break
		}
	}

	scan := segmentScanner{r: bufio.NewReaderSize(f, segmentReadBuffer)}
	var (
		pos      int64
		batches  int64
		idxEntry [indexEntrySize]byte
		idxOK    = idx != nil
	)
	for {
		rb, size, err := scan.next()
		if err != nil {
			break
		}
		var epoch int32
		var inTx bool
		if idxOK {
			if _, err := io.ReadFull(idx, idxEntry[:]); err != nil {
				idxOK = false
			} else {
				epoch, _, inTx, _ = decodeIndexEntry(idxEntry[:])
			}
		}
		batch := partBatch{RecordBatch: rb, nbytes: size, epoch: epoch, inTx: inTx}
		if seg != nil {
			meta := batch.meta(pos)
			seg.index = append(seg.index, meta)
			seg.updateEpochRange(batch.epoch)
			seg.updateMaxBatch(meta, pos == 0)
		}
		if each != nil {
			each(&batch)
		}
		pos += int64(size)
		batches++
	}
	if seg != nil {
		seg.size = pos
	}

	if fileSize > pos {
		c.cfg.logger.Logf(LogLevelWarn, "partition %s-%d segment %d: truncating %d corrupt bytes",
			pd.t, pd.p, base, fileSize-pos)
		if wf, err := fsys.OpenFile(segPath, os.O_WRONLY, 0o644); err != nil {
			c.cfg.logger.Logf(LogLevelWarn, "partition %s-%d segment %d: open for truncate: %v", pd.t, pd.p, base, err)
		} else {
			if err := wf.Truncate(pos); err != nil {
				c.cfg.logger.Logf(LogLevelWarn, "partition %s-%d segment %d: truncate: %v", pd.t, pd.p, base, err)
			}
			wf.Close()
		}
	}

	// Truncate orphaned index entries that may remain from a prior
	// crash where the index write succeeded but the segment did not.
	idxPath := filepath.Join(pdir, indexFileName(base))
	if info, err := fsys.Stat(idxPath); err == nil && info.Size() > batches*indexEntrySize {
		if wf, err := fsys.OpenFile(idxPath, os.O_WRONLY, 0o644); err == nil {
			wf.Truncate(batches * indexEntrySize)
			wf.Close()
		}
	}
	return nil
}

// UncleanOpenTransaction is a transaction whose records a full replay
// (after an unclean shutdown) found with no COMMIT or ABORT marker after
// them and that could not be resumed (resumeUncleanOpen): its producer is
// unknown to pids.log or at another epoch. The replay counts its records as
// aborted, but writes no marker.
type UncleanOpenTransaction struct {
	Topic         string
	Partition     int32
	ProducerID    int64
	ProducerEpoch int16 // of its last transactional batch
	FirstOffset   int64 // its first record on the partition
}

// UncleanOpenTransactions lists the transactions the load at start found
// open and could not resume, so that the embedder can look at them (and
// write their markers) without reading every partition. It is empty after
// a clean shutdown, whose snapshots need no replay, and when every open
// transaction was resumed.
func (c *Cluster) UncleanOpenTransactions() []UncleanOpenTransaction {
	return slices.Clone(c.uncleanOpen)
}

// resumeUncleanOpen keeps open the transactions a full replay found open,
// as Kafka does after a crash: the coordinator's state (pids.log) still
// holds the producer at the epoch of the open records, so the transaction
// is Ongoing again, holding the LSO at its first record, until its
// producer ends it, a new producer with its transactional id fences it, or
// its transaction.timeout.ms passes since it began. A transaction whose
// producer pids.log does not hold at that epoch with a transactional id
// cannot be resumed: it stays aborted (without a marker), is left in
// crashAborted (its producer's epoch is then bumped) and stays listed by
// UncleanOpenTransactions.
func (c *Cluster) resumeUncleanOpen(crashAborted map[int64]struct{}) {
	var unresumed []UncleanOpenTransaction
	for _, u := range c.uncleanOpen {
		pidinf := c.pids.ids[u.ProducerID]
		pd, ok := c.data.tps.getp(u.Topic, u.Partition)
		if pidinf == nil || pidinf.txid == "" || pidinf.epoch != u.ProducerEpoch || !ok {
			unresumed = append(unresumed, u)
			continue
		}
		pd.abortedTxns = slices.DeleteFunc(pd.abortedTxns, func(a abortedTxnEntry) bool {
			return a.producerID == u.ProducerID && a.firstOffset == u.FirstOffset
		})
		if pd.uncommittedPIDs == nil {
			pd.uncommittedPIDs = make(map[int64]int64)
		}
		pd.uncommittedPIDs[u.ProducerID] = u.FirstOffset
		pd.recalculateLSO()
		pidinf.txParts.mkt(u.Topic)[u.Partition] = pd
		*pidinf.txPartFirstOffsets.mkp(u.Topic, u.Partition, func() *int64 { return new(int64) }) = u.FirstOffset
		if !pidinf.inTx {
			pidinf.inTx = true
			if pidinf.txStart.IsZero() {
				pidinf.txStart = time.Now()
			}
			c.pids.txs[pidinf] = struct{}{}
		}
	}
	for _, u := range c.uncleanOpen {
		if pidinf := c.pids.ids[u.ProducerID]; pidinf != nil && pidinf.inTx {
			delete(crashAborted, u.ProducerID)
		}
	}
	c.uncleanOpen = unresumed
}
