package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// StudentMechanism is the SASL mechanism of a classroom's students and of
// the embedded broker's super user: SCRAM-SHA-256, which confluent-kafka,
// the Java client, kcat and franz-go all speak.
const StudentMechanism = "SCRAM-SHA-256"

// scramIterations is what Kafka's own tools use by default.
const scramIterations = 8192

// StudentNamespace starts every topic, group and transactional id a
// classroom's student may touch, and nothing else of the lab: a student
// called ann owns the prefix StudentPrefix("ann") = "student-ann-",
// whatever names a lesson, an exercise fixture or the teacher makes later,
// because the lab refuses to make or write any name in the namespace
// (InStudentNamespace; internal/lab checks it on every write it does).
// Student names are letters and digits only, so one student's prefix
// never starts another's.
const StudentNamespace = "student-"

// StudentPrefix is the prefix that starts each of student's names
// ("student-ann-"): their topics, groups and transactional ids.
func StudentPrefix(student string) string { return StudentNamespace + student + "-" }

// InStudentNamespace reports whether name belongs to the students'
// namespace, which the dashboard, the lessons and the teacher's actions
// never write.
func InStudentNamespace(name string) bool { return strings.HasPrefix(name, StudentNamespace) }

// Student is what a classroom's student may do on the brokers: every
// topic, group and transactional id that starts with Prefix, and read the
// shared topics.
type Student struct {
	User     string
	Password string
	// Mechanism is "SCRAM-SHA-256" (the default) or "SCRAM-SHA-512":
	// the one the cluster's listener enables.
	Mechanism string
	// Prefix starts each of the student's names (StudentPrefix: the
	// ACLs refuse a prefix outside StudentNamespace).
	Prefix string
	// SharedTopics are the teacher's topics every student reads.
	SharedTopics []string
}

// ErrUnmanaged is the cause of AddStudent's problem when the dashboard's
// own user may not create users or ACLs: the cluster's owner sets them.
var ErrUnmanaged = errors.New("cluster: the dashboard may not create users or ACLs")

// AddStudent creates the student's SCRAM user (or changes its password)
// and the ACLs that confine them to their prefix, with
// AlterUserScramCredentials and CreateAcls — on the embedded broker of a
// classroom and on a real cluster alike. It costs two admin requests. A
// cluster that refuses them for want of rights answers a problem.Forbidden
// whose cause is ErrUnmanaged; nothing is left half made that a second
// call would not complete.
func (c *Cluster) AddStudent(ctx context.Context, s Student) error {
	if !InStudentNamespace(s.Prefix) || len(s.Prefix) <= len(StudentNamespace) {
		return fmt.Errorf("cluster: student %s: prefix %q is outside %q", s.User, s.Prefix, StudentNamespace)
	}
	mechanism := kadm.ScramSha256
	if s.Mechanism == "SCRAM-SHA-512" {
		mechanism = kadm.ScramSha512
	}
	altered, err := c.admin.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{
		User: s.User, Mechanism: mechanism, Iterations: scramIterations, Password: s.Password,
	}})
	if err == nil {
		for _, a := range altered {
			if a.Err != nil {
				err = a.Err
			}
		}
	}
	if err != nil {
		return studentErr(s.User, err)
	}
	principal := "User:" + s.User
	own := kadm.NewACLs().Allow(principal).AllowHosts().
		Topics(s.Prefix).Groups(s.Prefix).TransactionalIDs(s.Prefix).
		ResourcePatternType(kadm.ACLPatternPrefixed).Operations(kadm.OpAll)
	builders := []*kadm.ACLBuilder{own}
	if len(s.SharedTopics) > 0 {
		builders = append(builders, kadm.NewACLs().Allow(principal).AllowHosts().
			Topics(s.SharedTopics...).ResourcePatternType(kadm.ACLPatternLiteral).
			Operations(kadm.OpRead, kadm.OpDescribe))
	}
	for _, b := range builders {
		results, err := c.admin.CreateACLs(ctx, b)
		if err == nil {
			for _, r := range results {
				if r.Err != nil {
					err = r.Err
				}
			}
		}
		if err != nil {
			return studentErr(s.User, err)
		}
	}
	return nil
}

// Each classroom student's Kafka quotas on a real cluster, set with
// AlterClientQuotas on their user: what one student may produce and
// fetch per second, and the partitions they may create or delete per
// second (Kafka's controller mutation quota, answered
// THROTTLING_QUOTA_EXCEEDED with a throttle time). The embedded broker
// holds students to its own shares instead (TopicLimits, DataBudget).
const (
	StudentProduceBytesPerSecond = 1 << 20
	StudentFetchBytesPerSecond   = 4 << 20
	StudentMutationsPerSecond    = 5
)

// SetStudentQuotas sets a student's quotas (above) on a real cluster,
// with AlterClientQuotas. ok is false when the dashboard's user may not
// (the quotas are then the cluster owner's) or on the embedded broker.
func (c *Cluster) SetStudentQuotas(ctx context.Context, user string) (bool, error) {
	if c.mode == Embedded {
		return false, nil
	}
	altered, err := c.admin.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{
		Entity: kadm.ClientQuotaEntity{{Type: "user", Name: &user}},
		Ops: []kadm.AlterClientQuotaOp{
			{Key: "producer_byte_rate", Value: StudentProduceBytesPerSecond},
			{Key: "consumer_byte_rate", Value: StudentFetchBytesPerSecond},
			{Key: "controller_mutation_rate", Value: StudentMutationsPerSecond},
		},
	}})
	if err == nil {
		for _, a := range altered {
			if a.Err != nil {
				err = a.Err
			}
		}
	}
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, kerr.ClusterAuthorizationFailed) || errors.Is(err, kerr.UnsupportedVersion):
		return false, nil
	}
	return false, fmt.Errorf("cluster: set the quotas of student %s: %w", user, err)
}

// RemoveStudent revokes a student: their SCRAM user (both mechanisms)
// and every ACL of their principal, with AlterUserScramCredentials and
// DeleteAcls; with deleteNames, also the topics and groups under prefix.
// It answers problem.Forbidden with ErrUnmanaged as cause when the
// dashboard may not change users or ACLs (the cluster's owner revokes
// them then). Topics kept stay under the prefix, which no one else can
// get while they exist (PrefixInUse).
func (c *Cluster) RemoveStudent(ctx context.Context, user, prefix string, deleteNames bool) error {
	if !InStudentNamespace(prefix) || len(prefix) <= len(StudentNamespace) {
		return fmt.Errorf("cluster: remove student %s: prefix %q is outside %q", user, prefix, StudentNamespace)
	}
	altered, err := c.admin.AlterUserSCRAMs(ctx, []kadm.DeleteSCRAM{{User: user, Mechanism: kadm.ScramSha256}, {User: user, Mechanism: kadm.ScramSha512}}, nil)
	if err == nil {
		for _, a := range altered {
			if a.Err != nil && !errors.Is(a.Err, kerr.ResourceNotFound) {
				err = a.Err
			}
		}
	}
	if err != nil {
		return studentErr(user, err)
	}
	filter := kadm.NewACLs().Allow("User:" + user).AllowHosts().AnyResource().
		ResourcePatternType(kadm.ACLPatternAny).Operations(kadm.OpAny)
	deleted, err := c.admin.DeleteACLs(ctx, filter)
	if err == nil {
		for _, d := range deleted {
			if d.Err != nil {
				err = d.Err
			}
		}
	}
	if err != nil {
		return studentErr(user, err)
	}
	if !deleteNames {
		return nil
	}
	return c.deleteUnder(ctx, prefix)
}

// deleteUnder deletes the topics and groups whose names start with prefix.
func (c *Cluster) deleteUnder(ctx context.Context, prefix string) error {
	topics, err := c.AllTopics(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range topics {
		if strings.HasPrefix(t.Name, prefix) {
			names = append(names, t.Name)
		}
	}
	if len(names) > 0 {
		resp, err := c.admin.DeleteTopics(ctx, names...)
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			return fmt.Errorf("cluster: delete the topics under %s: %w", prefix, err)
		}
		// Deleted topics leave the metadata a moment later: until then
		// the name would still look taken (PrefixInUse).
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = wait.Until(wctx, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
			left, err := c.AllTopics(ctx)
			if err != nil {
				return false, err
			}
			for _, t := range left {
				if slices.Contains(names, t.Name) {
					return false, nil
				}
			}
			return true, nil
		})
		cancel()
		if err != nil {
			return fmt.Errorf("cluster: the topics under %s are still listed after their deletion: %w", prefix, err)
		}
	}
	groups, err := c.ListGroups(ctx)
	if err != nil {
		return err
	}
	var gs []string
	for _, g := range groups {
		if strings.HasPrefix(g.Group, prefix) {
			gs = append(gs, g.Group)
		}
	}
	if len(gs) > 0 {
		if _, err := c.admin.DeleteGroups(ctx, gs...); err != nil {
			return fmt.Errorf("cluster: delete the groups under %s: %w", prefix, err)
		}
	}
	return nil
}

// studentErr names why a student's user or ACLs could not be made.
func studentErr(user string, err error) error {
	if errors.Is(err, kerr.ClusterAuthorizationFailed) || errors.Is(err, kerr.SecurityDisabled) ||
		errors.Is(err, kerr.UnsupportedSaslMechanism) || errors.Is(err, kerr.UnsupportedVersion) {
		return problem.Wrap(fmt.Errorf("%w: %w", ErrUnmanaged, err), problem.Forbidden, "error.studentUnmanaged", "user", user)
	}
	return problem.Wrap(fmt.Errorf("cluster: add student %s: %w", user, err), problem.Unavailable, "error.studentNotAdded", "user", user, "error", err.Error())
}

// PrefixInUse reports whether a topic or group of the cluster already
// starts with prefix: a student whose ACLs would cover someone else's
// records or offsets (a removed student's, kept) must pick another name.
// Transactional ids are left out: they hold no records, cannot be
// deleted (they expire after transactional.id.expiration.ms), and one
// left by a removed student fences no one but that student. It costs a
// metadata request and a ListGroups.
func (c *Cluster) PrefixInUse(ctx context.Context, prefix string) (bool, error) {
	topics, err := c.AllTopics(ctx)
	if err != nil {
		return false, err
	}
	for _, t := range topics {
		if strings.HasPrefix(t.Name, prefix) {
			return true, nil
		}
	}
	groups, err := c.ListGroups(ctx)
	if err != nil {
		return false, err
	}
	for _, g := range groups {
		if strings.HasPrefix(g.Group, prefix) {
			return true, nil
		}
	}
	return false, nil
}
