package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// apiRanges maps each API key the embedded broker serves to the versions
// it serves, as it advertises them in ApiVersions and kmsg can parse them.
type apiRanges map[int16]versionRange

type versionRange struct{ min, max int16 }

// checkedRequest is a request frame fit for kfake.
type checkedRequest struct {
	frame      []byte       // the frame to hand over, size prefix included
	noResponse bool         // an acks=0 produce: kfake writes no answer
	compat     kmsg.Request // a request whose answer compat.go may rewrite
	corrupt    []string     // why record batches were refused (see batchValidator)
	login      *loginAttempt
	// kreq is the parsed request of the kinds studentShares looks at
	// (nil for the others), header the frame up to its body, corr its
	// correlation id.
	kreq   kmsg.Request
	header []byte
	corr   int32
}

// loginAttempt is a SaslAuthenticate request: what the guard needs to
// answer it itself when kfake closes the connection on a wrong password
// instead of answering.
type loginAttempt struct {
	corr    int32
	version int16
	user    string
}

// saslUser is the user a SCRAM client-first message ("n,,n=ann,r=…") or a
// PLAIN message ("\x00ann\x00password") names, for the log; "" when
// neither.
func saslUser(auth []byte) string {
	s := string(auth)
	var user string
	if _, rest, ok := strings.Cut(s, ",n="); ok {
		user, _, _ = strings.Cut(rest, ",")
	} else if parts := strings.Split(s, "\x00"); len(parts) == 3 {
		user = parts[1]
	}
	if len(user) > 64 || strings.IndexFunc(user, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return "?"
	}
	return user
}

// check parses frame (size prefix included) as kfake's reader will and
// refuses what kfake cannot take: an API key it does not serve (kfake would
// dereference kmsg.RequestForKey's nil), a version outside its range, a
// header or body kmsg cannot parse, or a request one of kfake's handlers
// would panic on. Apache Kafka closes the connection on all of these. The
// record batches of a produce request go through batches: the ones Kafka
// refuses are answered INVALID_RECORD, as Kafka does, and the connection
// stays. A fetch that would wait longer than maxWait is told to wait
// maxWait.
func (a apiRanges) check(frame []byte, batches *batchValidator, maxWait time.Duration) (checkedRequest, *refusal) {
	r := kbin.Reader{Src: frame[4:]}
	key := r.Int16()
	version := r.Int16()
	corr := r.Int32()
	r.NullableString()
	if !r.Ok() {
		return checkedRequest{}, &refusal{"unparsable request", "the request header is cut short"}
	}
	headerEnd := len(frame) - len(r.Src)
	served, ok := a[key]
	kreq := kmsg.RequestForKey(key)
	if !ok || kreq == nil {
		return checkedRequest{}, &refusal{"unsupported API key", fmt.Sprintf("API key %d is not one the embedded broker serves", key)}
	}
	if version < served.min || version > served.max {
		if key == int16(kmsg.ApiVersions) && version > served.max {
			// KIP-511: an ApiVersions newer than ours is answered,
			// not parsed: the client learns our range and retries.
			return checkedRequest{frame: apiVersionsAbove(frame[:headerEnd], version)}, nil
		}
		return checkedRequest{}, &refusal{"unsupported version", fmt.Sprintf("%s version %d is outside %d–%d", kmsg.NameForKey(key), version, served.min, served.max)}
	}
	kreq.SetVersion(version)
	if kreq.IsFlexible() {
		kmsg.SkipTags(&r)
		if !r.Ok() {
			return checkedRequest{}, &refusal{"unparsable request", fmt.Sprintf("%s v%d: bad request header tags", kmsg.NameForKey(key), version)}
		}
	}
	bodyStart := len(frame) - len(r.Src)
	if err := kreq.ReadFrom(r.Src); err != nil {
		return checkedRequest{}, &refusal{"unparsable request", fmt.Sprintf("%s v%d: %v", kmsg.NameForKey(key), version, err)}
	}
	if why := unsafeForKfake(kreq); why != "" {
		return checkedRequest{}, &refusal{"request kfake cannot take", fmt.Sprintf("%s v%d: %s", kmsg.NameForKey(key), version, why)}
	}
	checked := checkedRequest{frame: frame, corr: corr}
	switch kreq.(type) {
	case *kmsg.CreateTopicsRequest, *kmsg.CreatePartitionsRequest, *kmsg.MetadataRequest, *kmsg.InitProducerIDRequest:
		checked.kreq, checked.header = kreq, frame[:bodyStart]
	}
	if rewritesAnswer(kreq) {
		checked.compat = kreq
	}
	waitMillis := int32(min(maxWait.Milliseconds(), 1<<31-1))
	switch req := kreq.(type) {
	case *kmsg.SASLAuthenticateRequest:
		checked.login = &loginAttempt{corr: corr, version: version, user: saslUser(req.SASLAuthBytes)}
	case *kmsg.ProduceRequest:
		checked.noResponse = req.Acks == 0
		checked.corrupt = batches.sanitize(req)
	case *kmsg.FetchRequest:
		if req.MaxWaitMillis > waitMillis {
			req.MaxWaitMillis = waitMillis
			checked.frame = reencode(frame[:bodyStart], req)
		}
	case *kmsg.ShareFetchRequest:
		if req.MaxWaitMillis > waitMillis {
			req.MaxWaitMillis = waitMillis
			checked.frame = reencode(frame[:bodyStart], req)
		}
	}
	return checked, nil
}

// reencode builds a frame from the original size prefix and header and
// req's body.
func reencode(header []byte, req kmsg.Request) []byte {
	frame := req.AppendTo(append([]byte(nil), header...))
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	return frame
}

// apiVersionsAbove rebuilds an ApiVersions request of a version above
// kfake's with an empty body kfake can parse at that version; kfake then
// answers it as Kafka does, with a v0 UNSUPPORTED_VERSION response listing
// the ApiVersions versions it serves.
func apiVersionsAbove(header []byte, version int16) []byte {
	frame := append([]byte(nil), header...)
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = version
	if req.IsFlexible() {
		frame = append(frame, 0) // no header tags
	}
	frame = req.AppendTo(frame)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	return frame
}

// maxPartitionsPerRequest is Apache Kafka's limit on the partitions one
// CreateTopics or CreatePartitions request may create
// (ReplicationControlManager.MAX_PARTITIONS_PER_BATCH); Kafka answers
// POLICY_VIOLATION above it. kfake has no limit and allocates every
// partition asked for: one request for 2^31-1 partitions takes the process
// down. The caps on what the broker holds in all (TopicLimits) need its
// state, so they are applied inside it (third_party/kfake/topic_limits.go),
// where a refusal is an answer, not a closed connection.
const maxPartitionsPerRequest = 10_000

// unsafeForKfake says why handling req would crash or balloon the embedded
// broker, or "". kfake's handlers run on the broker's one goroutine, where
// a panic ends the process. Each case here is written up in
// docs/divergences.md and offered upstream.
func unsafeForKfake(req kmsg.Request) string {
	var partitions int64
	switch req := req.(type) {
	case *kmsg.CreateTopicsRequest:
		for _, t := range req.Topics {
			switch {
			case len(t.ReplicaAssignment) > 0:
				partitions += int64(len(t.ReplicaAssignment))
			case t.NumPartitions > 0:
				partitions += int64(t.NumPartitions)
			}
		}
	case *kmsg.CreatePartitionsRequest:
		// Count is the new total; counting it whole (not less the
		// partitions the topic has) errs on the side of refusing.
		for _, t := range req.Topics {
			partitions += int64(max(t.Count, 0))
		}
	}
	if partitions > maxPartitionsPerRequest {
		return fmt.Sprintf("asks for %d partitions; Kafka creates at most %d per request", partitions, maxPartitionsPerRequest)
	}
	return ""
}

// appendRequestFrame appends req as a request frame: size, header v1 or v2
// (flexible versions) with clientID, and body.
func appendRequestFrame(dst []byte, req kmsg.Request, corr int32, clientID string) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.Key()))
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.GetVersion()))
	dst = binary.BigEndian.AppendUint32(dst, uint32(corr))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(clientID)))
	dst = append(dst, clientID...)
	if req.IsFlexible() {
		dst = append(dst, 0)
	}
	dst = req.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// learnAPIRanges asks the broker behind l which requests it serves, over an
// in-process pipe that bypasses the guard, before any client is accepted.
func (l *guardListener) learnAPIRanges(timeout time.Duration) (apiRanges, error) {
	client, server := net.Pipe()
	defer client.Close()
	select {
	case l.conns <- server:
	case <-time.After(timeout):
		server.Close()
		return nil, errors.New("the embedded broker did not accept its own connection")
	}
	if err := client.SetDeadline(time.Now().Add(timeout)); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrApiVersionsRequest() // v0: every broker answers it
	if _, err := client.Write(appendRequestFrame(nil, req, 1, "offset-lab")); err != nil {
		return nil, fmt.Errorf("ask the embedded broker for its API versions: %w", err)
	}
	var size [4]byte
	if _, err := io.ReadFull(client, size[:]); err != nil {
		return nil, fmt.Errorf("read the embedded broker's API versions: %w", err)
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:])) // our own broker's answer
	if _, err := io.ReadFull(client, body); err != nil || len(body) < 4 {
		return nil, fmt.Errorf("read the embedded broker's API versions: %v", err)
	}
	resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
	if err := resp.ReadFrom(body[4:]); err != nil {
		return nil, fmt.Errorf("decode the embedded broker's API versions: %w", err)
	}
	return rangesFrom(resp), nil
}

// rangesFrom keeps the advertised keys kmsg knows, up to the versions kmsg
// can parse.
func rangesFrom(resp *kmsg.ApiVersionsResponse) apiRanges {
	api := make(apiRanges, len(resp.ApiKeys))
	for _, k := range resp.ApiKeys {
		kreq := kmsg.RequestForKey(k.ApiKey)
		if kreq == nil {
			continue
		}
		if hi := min(k.MaxVersion, kreq.MaxVersion()); k.MinVersion <= hi {
			api[k.ApiKey] = versionRange{k.MinVersion, hi}
		}
	}
	return api
}
