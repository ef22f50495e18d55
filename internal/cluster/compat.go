package cluster

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// compatListener wraps the embedded broker's listener so that its answers
// match Apache Kafka where kfake's differ in a way that breaks ordinary
// clients. Today that is one answer: OffsetFetch for a group that has never
// committed. Kafka 4.3.1 answers "no committed offset" (-1 per partition,
// no error); kfake answers GROUP_ID_NOT_FOUND, which makes librdkafka's
// consumer.committed() — the seeds' processor.py — raise. Everything else
// passes through untouched.
type compatListener struct {
	net.Listener
}

func (l compatListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &compatConn{Conn: conn, pending: make(map[int32]*kmsg.OffsetFetchRequest)}, nil
}

// compatConn watches the request frames the broker reads and rewrites the
// OffsetFetch responses it writes.
type compatConn struct {
	net.Conn

	mu      sync.Mutex
	in      []byte                             // request bytes not yet framed
	pending map[int32]*kmsg.OffsetFetchRequest // by correlation id
	out     []byte                             // response bytes not yet framed
}

// maxFrame bounds the frames compatConn buffers.
const maxFrame = 100 << 20

func (c *compatConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.observeRequests(p[:n])
	}
	return n, err
}

// observeRequests frames the request stream and remembers OffsetFetch
// requests. Other requests are dropped from the buffer as soon as framed.
func (c *compatConn) observeRequests(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.in = append(c.in, p...)
	for len(c.in) >= 4 {
		size := int(binary.BigEndian.Uint32(c.in))
		if size < 0 || size > maxFrame {
			c.in = nil // not Kafka; let the broker deal with it
			return
		}
		if len(c.in) < 4+size {
			return
		}
		frame := c.in[4 : 4+size]
		if req, corr, ok := parseOffsetFetch(frame); ok {
			c.pending[corr] = req
		}
		c.in = c.in[4+size:]
	}
	if len(c.in) == 0 {
		c.in = nil
	}
}

// parseOffsetFetch decodes a request frame (without its size) if it is an
// OffsetFetch.
func parseOffsetFetch(frame []byte) (*kmsg.OffsetFetchRequest, int32, bool) {
	if len(frame) < 10 || int16(binary.BigEndian.Uint16(frame)) != int16(kmsg.OffsetFetch) {
		return nil, 0, false
	}
	req := kmsg.NewPtrOffsetFetchRequest()
	req.SetVersion(int16(binary.BigEndian.Uint16(frame[2:])))
	corr := int32(binary.BigEndian.Uint32(frame[4:]))
	body := frame[8:]
	if len(body) < 2 {
		return nil, 0, false
	}
	clientIDLen := int(int16(binary.BigEndian.Uint16(body)))
	body = body[2:]
	if clientIDLen > 0 {
		if len(body) < clientIDLen {
			return nil, 0, false
		}
		body = body[clientIDLen:]
	}
	if req.IsFlexible() {
		var ok bool
		if body, ok = skipTags(body); !ok {
			return nil, 0, false
		}
	}
	if err := req.ReadFrom(body); err != nil {
		return nil, 0, false
	}
	return req, corr, true
}

// skipTags skips an empty or small tagged-field section.
func skipTags(b []byte) ([]byte, bool) {
	n, used := binary.Uvarint(b)
	if used <= 0 {
		return nil, false
	}
	b = b[used:]
	for range n {
		_, u1 := binary.Uvarint(b)
		if u1 <= 0 {
			return nil, false
		}
		b = b[u1:]
		size, u2 := binary.Uvarint(b)
		if u2 <= 0 || uint64(len(b)-u2) < size {
			return nil, false
		}
		b = b[u2+int(size):]
	}
	return b, true
}

func (c *compatConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if len(c.pending) == 0 && len(c.out) == 0 {
		c.mu.Unlock()
		return c.Conn.Write(p)
	}
	c.out = append(c.out, p...)
	var flush bytes.Buffer
	for len(c.out) >= 8 {
		size := int(binary.BigEndian.Uint32(c.out))
		if size < 4 || size > maxFrame {
			flush.Write(c.out)
			c.out = nil
			break
		}
		if len(c.out) < 4+size {
			break
		}
		frame := c.out[:4+size]
		corr := int32(binary.BigEndian.Uint32(frame[4:]))
		if req, ok := c.pending[corr]; ok {
			delete(c.pending, corr)
			if fixed, err := fixOffsetFetch(req, frame); err == nil {
				frame = fixed
			}
		}
		flush.Write(frame)
		c.out = c.out[4+size:]
	}
	if len(c.out) == 0 {
		c.out = nil
	}
	c.mu.Unlock()
	if flush.Len() > 0 {
		if _, err := c.Conn.Write(flush.Bytes()); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

var errUnchanged = errors.New("response needs no change")

// fixOffsetFetch rewrites GROUP_ID_NOT_FOUND into Kafka's answer for a
// group with no committed offsets: every requested partition at -1.
func fixOffsetFetch(req *kmsg.OffsetFetchRequest, frame []byte) ([]byte, error) {
	resp := req.ResponseKind().(*kmsg.OffsetFetchResponse)
	header := 8 // size + correlation id
	body := frame[header:]
	if resp.IsFlexible() {
		rest, ok := skipTags(body)
		if !ok {
			return nil, errors.New("bad response header")
		}
		header += len(body) - len(rest)
		body = rest
	}
	if err := resp.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("decode OffsetFetch response: %w", err)
	}
	changed := false
	notFound := kerr.GroupIDNotFound.Code
	if resp.Version <= 7 && resp.ErrorCode == notFound {
		resp.ErrorCode = 0
		for _, rt := range req.Topics {
			st := kmsg.NewOffsetFetchResponseTopic()
			st.Topic = rt.Topic
			for _, p := range rt.Partitions {
				sp := kmsg.NewOffsetFetchResponseTopicPartition()
				sp.Partition, sp.Offset, sp.LeaderEpoch = p, -1, -1
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		changed = true
	}
	for i := range resp.Groups {
		g := &resp.Groups[i]
		if g.ErrorCode != notFound || i >= len(req.Groups) {
			continue
		}
		g.ErrorCode = 0
		for _, rt := range req.Groups[i].Topics {
			st := kmsg.NewOffsetFetchResponseGroupTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, p := range rt.Partitions {
				sp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				sp.Partition, sp.Offset, sp.LeaderEpoch = p, -1, -1
				st.Partitions = append(st.Partitions, sp)
			}
			g.Topics = append(g.Topics, st)
		}
		changed = true
	}
	if !changed {
		return nil, errUnchanged
	}
	out := append([]byte(nil), frame[:header]...)
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out, nil
}
