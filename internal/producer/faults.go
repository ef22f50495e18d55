package producer

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// errProcessKilled is what a killed client's connections return.
var errProcessKilled = errors.New("offset lab: connection dropped because the process crashed")

// connections is a kgo Dialer that can inject the two network faults of the
// lessons: it can drop the response to the first Produce request (a lost
// ACK: the broker stored the batch, the client never hears so and retries),
// and it can kill every connection at once and refuse new ones, which is
// what the broker sees when a process dies: no EndTxn, no offset commit, no
// LeaveGroup, the sockets simply close.
type connections struct {
	dial func(ctx context.Context, network, host string) (net.Conn, error)

	mu           sync.Mutex
	open         map[net.Conn]struct{}
	killed       bool
	loseFirstAck bool // armed until one Produce response has been dropped
	ackLost      bool
	lost         []StoredBatch
	// onConcurrentTransactions, if set, is told of every InitProducerID
	// answered CONCURRENT_TRANSACTIONS (the client then retries).
	onConcurrentTransactions func()
	concurrent               int
}

// StoredBatch is where the broker stored a batch whose ACK was lost: the
// producer never learned it, but the log holds it.
type StoredBatch struct {
	Topic      string `json:"topic"`
	Partition  int32  `json:"partition"`
	BaseOffset int64  `json:"baseOffset"`
}

func newConnections(conn Connection, loseFirstAck bool) *connections {
	dial := conn.Dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	return &connections{dial: dial, open: make(map[net.Conn]struct{}), loseFirstAck: loseFirstAck}
}

// Dial implements the kgo.Dialer signature.
func (c *connections) Dial(ctx context.Context, network, host string) (net.Conn, error) {
	c.mu.Lock()
	killed := c.killed
	c.mu.Unlock()
	if killed {
		return nil, errProcessKilled
	}
	conn, err := c.dial(ctx, network, host)
	if err != nil {
		return nil, err
	}
	fc := &faultyConn{Conn: conn, owner: c, requests: make(map[int32]requestHeader)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.killed {
		conn.Close()
		return nil, errProcessKilled
	}
	c.open[fc] = struct{}{}
	return fc, nil
}

// Kill closes every connection and makes every later dial fail.
func (c *connections) Kill() {
	c.mu.Lock()
	c.killed = true
	conns := make([]net.Conn, 0, len(c.open))
	for conn := range c.open {
		conns = append(conns, conn)
	}
	c.open = map[net.Conn]struct{}{}
	c.mu.Unlock()
	for _, conn := range conns {
		conn.Close()
	}
}

// AckLost reports whether a Produce response was dropped.
func (c *connections) AckLost() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ackLost
}

// LostBatches are where the broker stored the batches whose ACK was lost.
func (c *connections) LostBatches() []StoredBatch {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]StoredBatch(nil), c.lost...)
}

// ConcurrentTransactions counts the InitProducerID requests the
// coordinator answered CONCURRENT_TRANSACTIONS.
func (c *connections) ConcurrentTransactions() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.concurrent
}

// answered notes what a response told the client.
func (c *connections) answered(req requestHeader, body []byte) {
	switch req.key {
	case int16(kmsg.InitProducerID):
		resp := kmsg.NewPtrInitProducerIDResponse()
		if decodeResponse(resp, req.version, body) != nil || resp.ErrorCode != kerr.ConcurrentTransactions.Code {
			return
		}
		c.mu.Lock()
		c.concurrent++
		notify := c.onConcurrentTransactions
		c.mu.Unlock()
		if notify != nil {
			notify()
		}
	}
}

// lostAck records where the broker stored the batches of a dropped
// Produce response.
func (c *connections) lostAck(req requestHeader, body []byte) {
	resp := kmsg.NewPtrProduceResponse()
	if decodeResponse(resp, req.version, body) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode == 0 {
				c.lost = append(c.lost, StoredBatch{Topic: t.Topic, Partition: p.Partition, BaseOffset: p.BaseOffset})
			}
		}
	}
}

// decodeResponse decodes a response body (after the correlation id) of
// the request's version.
func decodeResponse(resp kmsg.Response, version int16, body []byte) error {
	resp.SetVersion(version)
	r := kbin.Reader{Src: body}
	if resp.IsFlexible() {
		kmsg.SkipTags(&r)
	}
	return resp.ReadFrom(r.Src)
}

// takeAckToLose reports whether this response should be dropped, arming
// the fault only once per client.
func (c *connections) takeAckToLose() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loseFirstAck || c.ackLost {
		return false
	}
	c.ackLost = true
	return true
}

func (c *connections) forget(conn net.Conn) {
	c.mu.Lock()
	delete(c.open, conn)
	c.mu.Unlock()
}

// faultyConn watches the request frames written (size, api key, version,
// correlation id) to know what each response answers, and reads response
// frames whole so that it can read them and drop one.
type faultyConn struct {
	net.Conn
	owner *connections

	writeMu  sync.Mutex
	header   []byte // partial frame header being written
	skip     int    // bytes of the current request body still to pass
	requests map[int32]requestHeader

	readBuf []byte // rest of the current response frame to hand out
}

// requestHeader is what a response needs to be read: its request's API
// key and version.
type requestHeader struct {
	key     int16
	version int16
}

func (f *faultyConn) Write(p []byte) (int, error) {
	f.observeRequest(p)
	return f.Conn.Write(p)
}

// observeRequest follows the request stream frame by frame. A frame is a
// 4-byte size followed by the request: api key (2), version (2),
// correlation id (4), ...
func (f *faultyConn) observeRequest(p []byte) {
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	for len(p) > 0 {
		if f.skip > 0 {
			n := min(f.skip, len(p))
			f.skip -= n
			p = p[n:]
			continue
		}
		need := 12 - len(f.header)
		n := min(need, len(p))
		f.header = append(f.header, p[:n]...)
		p = p[n:]
		if len(f.header) < 12 {
			return
		}
		size := int(int32(binary.BigEndian.Uint32(f.header[0:4])))
		key := int16(binary.BigEndian.Uint16(f.header[4:6]))
		version := int16(binary.BigEndian.Uint16(f.header[6:8]))
		corr := int32(binary.BigEndian.Uint32(f.header[8:12]))
		if key == int16(kmsg.Produce) || key == int16(kmsg.InitProducerID) {
			f.requests[corr] = requestHeader{key: key, version: version}
		}
		f.skip = max(size-8, 0)
		f.header = f.header[:0]
	}
}

// request is the header of the request a response answers, if watched.
func (f *faultyConn) request(corr int32) (requestHeader, bool) {
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	req, ok := f.requests[corr]
	delete(f.requests, corr)
	return req, ok
}

func (f *faultyConn) Read(p []byte) (int, error) {
	if len(f.readBuf) == 0 {
		frame, err := f.readFrame()
		if err != nil {
			return 0, err
		}
		f.readBuf = frame
	}
	n := copy(p, f.readBuf)
	f.readBuf = f.readBuf[n:]
	return n, nil
}

// readFrame reads one whole response frame. If it answers the Produce
// request whose ACK is to be lost, it closes the connection instead: the
// broker has stored the batch, but the client sees only a dead socket.
func (f *faultyConn) readFrame() ([]byte, error) {
	var sizeBuf [4]byte
	if _, err := io.ReadFull(f.Conn, sizeBuf[:]); err != nil {
		return nil, err
	}
	size := int32(binary.BigEndian.Uint32(sizeBuf[:]))
	if size < 4 || size > 256<<20 {
		return nil, fmt.Errorf("offset lab: response frame of %d bytes", size)
	}
	frame := make([]byte, 4+int(size))
	copy(frame, sizeBuf[:])
	if _, err := io.ReadFull(f.Conn, frame[4:]); err != nil {
		return nil, err
	}
	corr := int32(binary.BigEndian.Uint32(frame[4:8]))
	req, watched := f.request(corr)
	if !watched {
		return frame, nil
	}
	if req.key == int16(kmsg.Produce) && f.owner.takeAckToLose() {
		f.owner.lostAck(req, frame[8:])
		f.Close()
		return nil, fmt.Errorf("offset lab: the produce ACK (correlation id %d) was lost: %w", corr, io.ErrUnexpectedEOF)
	}
	f.owner.answered(req, frame[8:])
	return frame, nil
}

func (f *faultyConn) Close() error {
	f.owner.forget(f)
	return f.Conn.Close()
}
