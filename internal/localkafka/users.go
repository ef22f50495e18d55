package localkafka

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/offsetlab/offsetlab/internal/wait"
)

// The secure shape's users and ACLs, made through kadm once the broker
// serves, logged in as the broker's own user (a super user): SCRAM-SHA-512
// credentials for admin and reader, and the reader's ALLOW bindings of
// settings/reader.acls. Both are idempotent, so a restart sets them again.

// scramIterations is what kafka-configs.sh uses by default; Kafka refuses
// fewer than 4096.
const scramIterations = 4096

// aclBinding is one line of settings/reader.acls.
type aclBinding struct {
	Resource  kmsg.ACLResourceType
	Name      string
	Pattern   kadm.ACLPattern
	Operation kadm.ACLOperation
}

// readerACLs parses settings/reader.acls: RESOURCE_TYPE NAME PATTERN_TYPE
// OPERATION per line, kafka-acls' spelling, # comments.
func readerACLs() ([]aclBinding, error) {
	b, err := settings.ReadFile("settings/reader.acls")
	if err != nil {
		return nil, err
	}
	var out []aclBinding
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("reader.acls line %d: want RESOURCE_TYPE NAME PATTERN_TYPE OPERATION, got %q", n, line)
		}
		rt, err1 := kmsg.ParseACLResourceType(f[0])
		pt, err2 := kmsg.ParseACLResourcePatternType(f[2])
		op, err3 := kmsg.ParseACLOperation(f[3])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("reader.acls line %d: %q: unknown resource type, pattern or operation", n, line)
		}
		out = append(out, aclBinding{Resource: rt, Name: f[1], Pattern: kadm.ACLPattern(pt), Operation: kadm.ACLOperation(op)})
	}
	return out, nil
}

// builder is the kadm request for the one binding.
func (a aclBinding) builder() *kadm.ACLBuilder {
	b := kadm.NewACLs().Allow("User:" + readerUser).AllowHosts("*").
		ResourcePatternType(a.Pattern).Operations(a.Operation)
	switch a.Resource {
	case kmsg.ACLResourceTypeTopic:
		b.Topics(a.Name)
	case kmsg.ACLResourceTypeGroup:
		b.Groups(a.Name)
	case kmsg.ACLResourceTypeTransactionalId:
		b.TransactionalIDs(a.Name)
	case kmsg.ACLResourceTypeCluster:
		b.Clusters()
	}
	return b
}

// provisionUsers sets the SCRAM credentials and the reader's ACLs, then
// waits until the reader can log in with SCRAM and the authorizer lists
// every binding.
func (c *Cluster) provisionUsers(ctx context.Context) error {
	login, err := c.brokerLogin()
	if err != nil {
		return err
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.Brokers()...), kgo.ClientID("offsetlab-localkafka-admin")}, login...)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var upserts []kadm.UpsertSCRAM
	for user, password := range map[string]string{adminUser: c.secrets.Admin, readerUser: c.secrets.Reader} {
		upserts = append(upserts, kadm.UpsertSCRAM{User: user, Mechanism: kadm.ScramSha512, Iterations: scramIterations, Password: password})
	}
	altered, err := adm.AlterUserSCRAMs(ctx, nil, upserts)
	if err != nil {
		return fmt.Errorf("set the SCRAM users: %w", err)
	}
	for _, a := range altered.Sorted() {
		if a.Err != nil {
			return fmt.Errorf("set the SCRAM user %s: %w %s", a.User, a.Err, a.ErrMessage)
		}
	}
	acls, err := readerACLs()
	if err != nil {
		return err
	}
	for _, a := range acls {
		results, err := adm.CreateACLs(ctx, a.builder())
		if err == nil {
			for _, r := range results {
				if r.Err != nil {
					err = fmt.Errorf("%w %s", r.Err, r.ErrMessage)
				}
			}
		}
		if err != nil {
			return fmt.Errorf("grant the reader %v on %s %s: %w", a.Operation, a.Resource, a.Name, err)
		}
	}
	return wait.Until(ctx, pollInterval, func(ctx context.Context) (bool, error) {
		for _, a := range acls {
			described, err := adm.DescribeACLs(ctx, a.builder())
			if err != nil || len(described) == 0 || described[0].Err != nil || len(described[0].Described) == 0 {
				return false, nil
			}
		}
		return c.readerLogsIn(ctx), nil
	})
}

// readerLogsIn reports whether the reader's SCRAM-SHA-512 login answers a
// Metadata request.
func (c *Cluster) readerLogsIn(ctx context.Context) bool {
	tlsCfg, err := c.clientTLS()
	if err != nil {
		return false
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.DialTLSConfig(tlsCfg),
		kgo.SASL(scram.Auth{User: readerUser, Pass: c.secrets.Reader}.AsSha512Mechanism()))
	if err != nil {
		return false
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	p := &probe{client: cl}
	_, err = p.liveBrokers(ctx, false)
	return err == nil
}
