package exercises

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// nameRule is a student's name: a letter, then letters and digits, 2 to
// 16 in all. No hyphen, so that one student's prefix
// (cluster.StudentPrefix: "student-<name>-") never starts another's.
var nameRule = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{1,15}$`)

// MaxStudents bounds a class: each student costs a SCRAM user, two ACL
// bindings and a grading every poll.
const MaxStudents = 200

// Users creates a student's SCRAM user and ACLs, after checking that no
// one else's names start with the student's prefix; *cluster.Cluster is
// one.
type Users interface {
	AddStudent(ctx context.Context, s cluster.Student) error
	RemoveStudent(ctx context.Context, user, prefix string, deleteNames bool) error
	PrefixInUse(ctx context.Context, prefix string) (bool, error)
	StudentShare(ctx context.Context, student string) (cluster.StudentShare, bool)
	SetStudentQuotas(ctx context.Context, user string) (bool, error)
}

// ClassConfig says how students reach the brokers.
type ClassConfig struct {
	// Users creates each student's user and ACLs; nil creates none (a
	// plaintext broker: students then connect without credentials).
	Users Users
	// Bootstrap is the address students' clients start from.
	Bootstrap []string
	// SecurityProtocol is Kafka's security.protocol for the students
	// ("SASL_PLAINTEXT", "SASL_SSL"; "PLAINTEXT" without Users).
	SecurityProtocol string
	// SharedTopics are the teacher's topics every student may read.
	SharedTopics []string
	// Mechanism is the SCRAM mechanism of the students' users:
	// "SCRAM-SHA-512" on a cluster that enables only that one, else
	// cluster.StudentMechanism.
	Mechanism string
}

// mechanism is the students' SCRAM mechanism.
func (cfg ClassConfig) mechanism() string {
	if cfg.Mechanism == "SCRAM-SHA-512" {
		return cfg.Mechanism
	}
	return cluster.StudentMechanism
}

// Identity is a student's Kafka identity, as their page shows it.
type Identity struct {
	Bootstrap        string `json:"bootstrap"`
	SecurityProtocol string `json:"securityProtocol"`
	SASLMechanism    string `json:"saslMechanism,omitempty"`
	Username         string `json:"username,omitempty"`
	Password         string `json:"password,omitempty"`
	// Topic, TransactionalIDPrefix and GroupPrefix are the prefix that
	// starts each of the student's names ("student-ann-",
	// cluster.StudentPrefix); an exercise's own names are
	// Exercise.NamesFor.
	Topic                 string   `json:"topic"`
	TransactionalIDPrefix string   `json:"transactionalIdPrefix"`
	GroupPrefix           string   `json:"groupPrefix"`
	SharedTopics          []string `json:"sharedTopics"`
	// Managed is true when the server created the user and the ACLs;
	// false leaves them to the cluster's owner.
	Managed bool `json:"managed"`
	// Quotas is true when the server set the student's Kafka quotas on
	// a real cluster (AlterClientQuotas: cluster.StudentProduceBytesPerSecond
	// …); false leaves them to the cluster's owner (the embedded broker
	// holds students to its own shares).
	Quotas bool `json:"quotas"`
}

// Student is one student of the class.
type Student struct {
	Name     string    `json:"name"`
	JoinedAt time.Time `json:"joinedAt"`
	Kafka    Identity  `json:"kafka"`
	// Token is the secret of the student's cookie.
	Token string `json:"-"`
	seq   int
}

// Class is the students who joined. It is safe for concurrent use. A
// Grader with a StateFile keeps it on disk (store.go): a join returns
// once the student is written there.
type Class struct {
	cfg ClassConfig

	mu       sync.Mutex
	students map[string]*Student // by lower-case name
	pending  map[string]bool     // names being joined
	byToken  map[string]*Student
	joined   int
	// persist, set by a Grader that keeps the class on disk, returns
	// once the class as it is now is written.
	persist func(ctx context.Context) error
}

// NewClass returns an empty class.
func NewClass(cfg ClassConfig) *Class {
	return &Class{cfg: cfg, students: map[string]*Student{}, pending: map[string]bool{}, byToken: map[string]*Student{}}
}

// Join adds a student named name and, when the class manages users,
// creates their SCRAM user and ACLs. A bad name is problem.Invalid
// (error.studentName), a taken one problem.Conflict
// (error.studentNameTaken); a broker that refuses the user for want of
// rights leaves the student unmanaged (no credentials), any other broker
// error fails the join and frees the name.
func (c *Class) Join(ctx context.Context, name string) (Student, error) {
	if !nameRule.MatchString(name) {
		return Student{}, problem.New(problem.Invalid, "error.studentName", "name", name)
	}
	key := strings.ToLower(name)
	c.mu.Lock()
	_, taken := c.students[key]
	switch {
	case taken || c.pending[key]:
		c.mu.Unlock()
		return Student{}, problem.New(problem.Conflict, "error.studentNameTaken", "name", name)
	case len(c.students)+len(c.pending) >= MaxStudents:
		c.mu.Unlock()
		return Student{}, problem.New(problem.Conflict, "error.classFull", "max", itoa(MaxStudents))
	}
	c.pending[key] = true
	c.mu.Unlock()

	s, err := c.identify(ctx, name)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, key)
	if err != nil {
		return Student{}, err
	}
	c.joined++
	s.seq = c.joined
	c.students[key] = &s
	c.byToken[s.Token] = &s
	persist := c.persist
	c.mu.Unlock()
	var err2 error
	if persist != nil {
		err2 = persist(ctx)
	}
	c.mu.Lock()
	if err2 != nil {
		// A student the class file does not hold would be gone at the
		// next start: refuse the join now rather than lose them then.
		delete(c.students, key)
		delete(c.byToken, s.Token)
		return Student{}, problem.Wrap(err2, problem.Unavailable, "error.classNotSaved", "name", name)
	}
	return s, nil
}

// Remove takes the student called name out of the class: the name is
// free again, their cookie no longer works and, when the class manages
// users, their Kafka user and ACLs are revoked; deleteNames also deletes
// their topics and groups (kept, they keep the name taken: see
// PrefixInUse). An unknown name is problem.NotFound (error.noSuchStudent).
// A broker that refuses for want of rights still removes them from the
// class and answers the problem.Forbidden (error.studentUnmanaged).
func (c *Class) Remove(ctx context.Context, name string, deleteNames bool) (Student, error) {
	key := strings.ToLower(name)
	c.mu.Lock()
	s, ok := c.students[key]
	if !ok {
		c.mu.Unlock()
		return Student{}, problem.New(problem.NotFound, "error.noSuchStudent", "name", name)
	}
	gone := *s
	c.mu.Unlock()
	var err error
	if c.cfg.Users != nil && (gone.Kafka.Managed || deleteNames) {
		err = c.cfg.Users.RemoveStudent(ctx, gone.Kafka.Username, gone.Kafka.Topic, deleteNames)
		if err != nil && problem.KindOf(err) != problem.Forbidden {
			return Student{}, err
		}
	}
	c.mu.Lock()
	if c.students[key] == s {
		delete(c.students, key)
		delete(c.byToken, s.Token)
	}
	persist := c.persist
	c.mu.Unlock()
	if persist != nil {
		if perr := persist(ctx); perr != nil && err == nil {
			err = problem.Wrap(perr, problem.Unavailable, "error.classNotSaved", "name", name)
		}
	}
	return gone, err
}

// Placeholder is the identity a student called name would get, without
// credentials: what the teacher's page shows.
func (c *Class) Placeholder(name string) Identity {
	id := c.identity(name)
	if c.cfg.Users != nil {
		id.SASLMechanism, id.Username, id.Password = c.cfg.mechanism(), name, "<password>"
	}
	return id
}

// identity is name's Kafka identity before any user is made.
func (c *Class) identity(name string) Identity {
	prefix := cluster.StudentPrefix(name)
	id := Identity{
		Bootstrap: strings.Join(c.cfg.Bootstrap, ","), SecurityProtocol: c.cfg.SecurityProtocol,
		Topic: prefix, TransactionalIDPrefix: prefix, GroupPrefix: prefix,
		SharedTopics: slices.Clone(c.cfg.SharedTopics),
	}
	if id.SecurityProtocol == "" {
		id.SecurityProtocol = "PLAINTEXT"
	}
	return id
}

// identify makes name's Kafka identity, with a user when the class
// manages them.
func (c *Class) identify(ctx context.Context, name string) (Student, error) {
	id := c.identity(name)
	prefix := id.Topic
	if c.cfg.Users != nil {
		// The ACLs cover everything "student-<name>-…", which nothing
		// of the lab ever makes; names already there are a former
		// student's (removed, their topics kept) or made outside the
		// lab, and would be handed to the newcomer.
		inUse, err := c.cfg.Users.PrefixInUse(ctx, prefix)
		if err != nil && problem.KindOf(err) != problem.Forbidden {
			return Student{}, err // a user that may not list them may not make ACLs either
		}
		if inUse {
			return Student{}, problem.New(problem.Conflict, "error.studentNameTaken", "name", name)
		}
		password := secret()
		err = c.cfg.Users.AddStudent(ctx, cluster.Student{User: name, Password: password, Mechanism: c.cfg.mechanism(), Prefix: prefix, SharedTopics: c.cfg.SharedTopics})
		switch {
		case err == nil:
			id.Managed, id.Username, id.Password, id.SASLMechanism = true, name, password, c.cfg.mechanism()
			if id.Quotas, err = c.cfg.Users.SetStudentQuotas(ctx, name); err != nil {
				return Student{}, err
			}
		case errors.Is(err, cluster.ErrUnmanaged):
		default:
			return Student{}, err
		}
	}
	return Student{Name: name, JoinedAt: time.Now(), Kafka: id, Token: secret()}, nil
}

// ByToken is the student whose cookie holds token.
func (c *Class) ByToken(token string) (Student, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.byToken[token]
	if !ok || token == "" {
		return Student{}, false
	}
	return *s, true
}

// Students are the class, in the order they joined.
func (c *Class) Students() []Student {
	c.mu.Lock()
	out := make([]Student, 0, len(c.students))
	for _, s := range c.students {
		out = append(out, *s)
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b Student) int { return a.seq - b.seq })
	return out
}

// secret is 128 bits from crypto/rand, URL-safe.
func secret() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// Share is what the student called name holds of their shares of the
// embedded broker (topics, partitions, data); ok is false when the class
// makes no users or the broker keeps no shares (a real cluster).
func (c *Class) Share(ctx context.Context, name string) (cluster.StudentShare, bool) {
	if c.cfg.Users == nil {
		return cluster.StudentShare{}, false
	}
	return c.cfg.Users.StudentShare(ctx, name)
}
