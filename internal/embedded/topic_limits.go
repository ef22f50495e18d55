package embedded

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TopicLimits caps what the embedded broker holds in topics and
// partitions, however they are asked for: CreateTopics or
// CreatePartitions from any Kafka client (the dashboard's own included),
// or a Metadata request that auto-creates a topic (kcat and Java
// producers do). Past a cap the broker answers POLICY_VIOLATION for that
// topic, as Apache Kafka's CreateTopics policy refuses, with a message
// that names the cap: kgo reports it as "POLICY_VIOLATION: Request
// parameters do not satisfy the configured policy", Kafka's admin tools
// print the message too, and Cluster.CreateTopic returns the conflict
// error.topicLimit. Nothing already created is
// removed; a teacher frees room by deleting topics. Each empty partition
// costs the broker a few KiB and the topics page a row, so the caps bound
// that memory and every list of topics.
type TopicLimits struct {
	// MaxTopics is how many topics the broker holds (default 1,000).
	MaxTopics int
	// MaxPartitions is how many partitions, over all topics, the broker
	// holds (default 5,000).
	MaxPartitions int
	// StudentMaxTopics and StudentMaxPartitions are each classroom
	// student's share, by Kafka identity: the topics and partitions in
	// their namespace (StudentPrefix; their ACLs let them create nowhere
	// else), defaults 20 and 50. Students together hold at most three
	// quarters of MaxTopics and MaxPartitions, so the teacher's lessons
	// always fit. Past a share CreateTopics and CreatePartitions are
	// refused POLICY_VIOLATION with a message, and a Metadata request
	// does not auto-create (the client sees UNKNOWN_TOPIC_OR_PARTITION).
	StudentMaxTopics     int
	StudentMaxPartitions int
}

// Defaults of TopicLimits.
const (
	DefaultMaxTopics            = 1000
	DefaultMaxPartitions        = 5000
	DefaultStudentMaxTopics     = 20
	DefaultStudentMaxPartitions = 50
)

// withDefaults fills zero fields with the defaults and rejects negative ones.
func (l TopicLimits) withDefaults() (TopicLimits, error) {
	if l.MaxTopics < 0 || l.MaxPartitions < 0 || l.StudentMaxTopics < 0 || l.StudentMaxPartitions < 0 {
		return l, fmt.Errorf("embedded: topic limits must not be negative: %+v", l)
	}
	if l.MaxTopics == 0 {
		l.MaxTopics = DefaultMaxTopics
	}
	if l.MaxPartitions == 0 {
		l.MaxPartitions = DefaultMaxPartitions
	}
	if l.StudentMaxTopics == 0 {
		l.StudentMaxTopics = DefaultStudentMaxTopics
	}
	if l.StudentMaxPartitions == 0 {
		l.StudentMaxPartitions = DefaultStudentMaxPartitions
	}
	return l, nil
}

// studentShares enforces TopicLimits' student shares at the Kafka port
// (the guard): it looks at CreateTopics, CreatePartitions and
// auto-creating Metadata requests that name a student's topics, counts
// what the student's namespace holds (one metadata request of the
// dashboard's own client) and answers POLICY_VIOLATION itself past a
// share, as Kafka's create-topic policy refuses.
type studentShares struct {
	limits TopicLimits
	// partitions lists every topic with its partition count.
	partitions func(ctx context.Context) (map[string]int, error)
}

// shareTimeout bounds the count a refusal needs; a count that fails lets
// the request through (the whole broker's caps still hold).
const shareTimeout = 5 * time.Second

// apply returns the guard's own answer to req when it passes a student's
// share, or reports that it rewrote req (a Metadata request no longer
// auto-creates).
func (s *studentShares) apply(req kmsg.Request, log *throttledLog, remote string) (kmsg.Response, bool) {
	type ask struct {
		topic      string
		partitions int // new partitions asked for; -1: a count to reach (CreatePartitions)
		newTopic   bool
	}
	var asks []ask
	switch r := req.(type) {
	case *kmsg.CreateTopicsRequest:
		for _, t := range r.Topics {
			n := int(t.NumPartitions)
			if n <= 0 {
				n = len(t.ReplicaAssignment)
			}
			asks = append(asks, ask{topic: t.Topic, partitions: max(n, 1), newTopic: true})
		}
	case *kmsg.CreatePartitionsRequest:
		for _, t := range r.Topics {
			asks = append(asks, ask{topic: t.Topic, partitions: -int(t.Count)})
		}
	case *kmsg.MetadataRequest:
		if !r.AllowAutoTopicCreation {
			return nil, false
		}
		for _, t := range r.Topics {
			if t.Topic != nil {
				asks = append(asks, ask{topic: *t.Topic, partitions: 1, newTopic: true})
			}
		}
	}
	any := false
	for _, a := range asks {
		any = any || cluster.StudentOwner(a.topic) != ""
	}
	if !any {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), shareTimeout)
	defer cancel()
	held, err := s.partitions(ctx)
	if err != nil {
		return nil, false
	}
	type use struct{ topics, partitions int }
	by := map[string]*use{}
	all := use{}
	for topic, n := range held {
		if owner := cluster.StudentOwner(topic); owner != "" {
			u := by[owner]
			if u == nil {
				u = &use{}
				by[owner] = u
			}
			u.topics++
			u.partitions += n
			all.topics++
			all.partitions += n
		}
	}
	var refusal, who string
	for _, a := range asks {
		owner := cluster.StudentOwner(a.topic)
		if owner == "" {
			continue
		}
		current, exists := held[a.topic]
		if a.newTopic && exists {
			continue // Kafka answers TOPIC_ALREADY_EXISTS (or Metadata lists it)
		}
		add, topics := a.partitions, 0
		if a.partitions < 0 {
			add = -a.partitions - current
		}
		if a.newTopic {
			topics = 1
		}
		u := by[owner]
		if u == nil {
			u = &use{}
			by[owner] = u
		}
		switch {
		case u.topics+topics > s.limits.StudentMaxTopics:
			refusal = fmt.Sprintf("Student %s has used their share of topics (%d of %d): delete one of theirs first.", owner, u.topics, s.limits.StudentMaxTopics)
		case u.partitions+add > s.limits.StudentMaxPartitions:
			refusal = fmt.Sprintf("Student %s may hold %d partitions; they hold %d and this asks for %d more: ask for fewer, or delete a topic of theirs first.", owner, s.limits.StudentMaxPartitions, u.partitions, add)
		case all.topics+topics > s.limits.MaxTopics/4*3 || all.partitions+add > s.limits.MaxPartitions/4*3:
			refusal = "The class has used the students' part of the embedded broker's topics (" + strconv.Itoa(all.topics) + " topics, " +
				strconv.Itoa(all.partitions) + " partitions; a quarter is kept for the teacher): students must delete topics first."
		}
		if refusal != "" {
			who = owner
			break
		}
		u.topics += topics
		u.partitions += add
		all.topics += topics
		all.partitions += add
	}
	if refusal == "" {
		return nil, false
	}
	log.warn("student topic share", "Kafka port: refused a student's topics: their share is used", "student", who, "remote", remote, "reason", refusal)
	return shareRefusal(req, refusal)
}

// shareRefusal is req refused: POLICY_VIOLATION with msg for every topic
// of a CreateTopics or CreatePartitions; a Metadata request is rewritten
// not to auto-create instead.
func shareRefusal(req kmsg.Request, msg string) (kmsg.Response, bool) {
	switch r := req.(type) {
	case *kmsg.CreateTopicsRequest:
		resp := r.ResponseKind().(*kmsg.CreateTopicsResponse)
		resp.Version = r.Version
		for _, t := range r.Topics {
			rt := kmsg.NewCreateTopicsResponseTopic()
			rt.Topic, rt.ErrorCode, rt.ErrorMessage = t.Topic, kerr.PolicyViolation.Code, &msg
			rt.NumPartitions, rt.ReplicationFactor = -1, -1
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, false
	case *kmsg.CreatePartitionsRequest:
		resp := r.ResponseKind().(*kmsg.CreatePartitionsResponse)
		resp.Version = r.Version
		for _, t := range r.Topics {
			rt := kmsg.NewCreatePartitionsResponseTopic()
			rt.Topic, rt.ErrorCode, rt.ErrorMessage = t.Topic, kerr.PolicyViolation.Code, &msg
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, false
	case *kmsg.MetadataRequest:
		r.AllowAutoTopicCreation = false
		return nil, true
	}
	return nil, false
}

// StudentShare is student's use of their shares; false when the count
// fails. It costs one metadata request.
func (b *broker) StudentShare(ctx context.Context, student string) (cluster.StudentShare, bool) {
	held, err := b.topicPartitions(ctx)
	if err != nil {
		return cluster.StudentShare{}, false
	}
	s := cluster.StudentShare{MaxTopics: b.topics.StudentMaxTopics, MaxPartitions: b.topics.StudentMaxPartitions}
	for topic, n := range held {
		if cluster.StudentOwner(topic) == student {
			s.Topics++
			s.Partitions += n
		}
	}
	if b.budget.limits.MaxBytes > 0 {
		s.UsedBytes, s.MaxBytes = b.budget.clientShare(studentShareKey+student), b.budget.limits.StudentMaxBytes
	}
	s.Full = s.MaxBytes > 0 && s.UsedBytes+cluster.FullMarginBytes/4 > s.MaxBytes || s.Topics >= s.MaxTopics || s.Partitions >= s.MaxPartitions
	if b.maxProducerIDs > 0 {
		s.ProducerIDs, s.MaxProducerIDs = b.fake.ProducerIDs()[student], b.maxProducerIDs
		s.ProducerIDsFull = s.ProducerIDs >= s.MaxProducerIDs
	}
	return s, true
}
