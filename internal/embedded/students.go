package embedded

import (
	"cmp"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// This file is what of a classroom lives in the embedded broker rather
// than in the Kafka protocol: SASL and ACLs switched on in kfake, the
// super user the dashboard's clients log in as and its password under the
// data directory. Students' users and ACLs themselves are made through
// the protocol, by internal/cluster (AddStudent), on any cluster.

// StudentAuth makes the embedded broker's Kafka port a classroom's: SASL
// on every connection, ACLs on every request, and Admin, a super user the
// dashboard's own clients authenticate as. Students are added later, one
// at a time, with cluster.Cluster.AddStudent.
//
// kfake keeps users and ACLs under the data directory, so the password of
// Admin must be the same from one start to the next on one data directory
// (the server keeps it in a file there).
type StudentAuth struct {
	Admin         string
	AdminPassword string
	// MaxProducerIDs is each student's cap on producer ids held at
	// once; zero takes StudentMaxProducerIDs.
	MaxProducerIDs int
	// ProducerIDExpiration is how long an unused producer id is kept;
	// zero takes ClassroomProducerIDExpiration.
	ProducerIDExpiration time.Duration
}

// StudentMaxProducerIDs is how many producer ids, idempotent or
// transactional, one classroom student holds at once on the embedded
// broker. Each costs the broker its state (sequence windows per
// partition written) and a line of pids.log; past the cap InitProducerId
// is answered THROTTLING_QUOTA_EXCEEDED with the time until the
// student's oldest id expires (at most a minute), and clients retry. The
// dashboard's own clients (the super user) have no cap.
const StudentMaxProducerIDs = 100

// ClassroomProducerIDExpiration is how long a classroom's embedded broker
// keeps a producer id nobody uses: Kafka's producer.id.expiration.ms
// (default one day) for idempotent ids and transactional.id.expiration.ms
// (default seven days) for transactional ones, shortened so that a
// student's cap frees up within a lesson. Idle ids are looked for every
// minute, or every quarter of a shorter expiration
// (producer.id.expiration.check.interval.ms).
const ClassroomProducerIDExpiration = time.Hour

// brokerOpts are the kfake options of a classroom's broker.
func (a *StudentAuth) brokerOpts() []kfake.Opt {
	return []kfake.Opt{
		kfake.EnableSASL(),
		kfake.EnableACLs(),
		kfake.Superuser(cluster.StudentMechanism, a.Admin, a.AdminPassword),
		kfake.ProducerIDLimit(a.maxProducerIDs()),
	}
}

func (a *StudentAuth) maxProducerIDs() int { return cmp.Or(a.MaxProducerIDs, StudentMaxProducerIDs) }

// brokerConfigs are the broker configs of a classroom's broker, over
// the lab's own.
func (a *StudentAuth) brokerConfigs() map[string]string {
	ms := func(d time.Duration) string { return strconv.FormatInt(max(d.Milliseconds(), 1), 10) }
	expiration := cmp.Or(a.ProducerIDExpiration, ClassroomProducerIDExpiration)
	return map[string]string{
		"producer.id.expiration.ms":                ms(expiration),
		"transactional.id.expiration.ms":           ms(expiration),
		"producer.id.expiration.check.interval.ms": ms(min(time.Minute, expiration/4)),
	}
}

// clientOpts are what the dashboard's clients add to authenticate.
func (a *StudentAuth) clientOpts() []kgo.Opt {
	return []kgo.Opt{kgo.SASL(scram.Auth{User: a.Admin, Pass: a.AdminPassword}.AsSha256Mechanism())}
}

// security is what /api/cluster reports of a classroom's port; zero
// without one.
func (a *StudentAuth) security() cluster.Security {
	if a == nil {
		return cluster.Security{}
	}
	return cluster.Security{Protocol: "SASL_PLAINTEXT", Mechanism: cluster.StudentMechanism, User: a.Admin}
}

// advertisedAddr is host with bound's port.
func advertisedAddr(bound net.Addr, host string) net.Addr {
	port := 0
	if t, ok := bound.(*net.TCPAddr); ok {
		port = t.Port
	} else if _, p, err := net.SplitHostPort(bound.String()); err == nil {
		port, _ = strconv.Atoi(p)
	}
	return hostPort{addr: net.JoinHostPort(host, strconv.Itoa(port))}
}

// hostPort is a net.Addr named by a host that need not be an IP address.
type hostPort struct{ addr string }

func (h hostPort) Network() string { return "tcp" }
func (h hostPort) String() string  { return h.addr }

// ClassroomAdminUser is the embedded classroom broker's super user, the
// dashboard's own identity there. Its hyphen keeps it apart from every
// student's name.
const ClassroomAdminUser = "offsetlab-admin"

// adminSecretFile holds the super user's password under the data
// directory, readable by its owner only.
const adminSecretFile = "classroom-admin.secret"

// ClassroomAdmin is the super user of a classroom's embedded broker on
// dataDir: its password is read from the data directory, or made and
// written there on first use, so that the users kfake persists there keep
// working across restarts. An empty dataDir (in memory) makes a fresh one.
func ClassroomAdmin(dataDir string) (*StudentAuth, error) {
	a := &StudentAuth{Admin: ClassroomAdminUser}
	if dataDir == "" {
		a.AdminPassword = randomSecret()
		return a, nil
	}
	path := filepath.Join(dataDir, adminSecretFile)
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		a.AdminPassword = strings.TrimSpace(string(b))
		return a, nil
	}
	if _, err := PrivateDataDir(dataDir); err != nil {
		return nil, err
	}
	a.AdminPassword = randomSecret()
	if err := os.WriteFile(path, []byte(a.AdminPassword+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("embedded: keep the classroom's admin password: %w", err)
	}
	return a, nil
}

// PrivateDataDir makes dir (creating it) readable by its owner only,
// 0700, and each secret file in it 0600: the broker's (sasl.json, the
// classroom's super user's password) and the caller's secrets, names
// relative to dir. It fixes what an older run left wider and returns the
// paths it changed, for the log.
func PrivateDataDir(dir string, secrets ...string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("embedded: create data dir %s: %w", dir, err)
	}
	var fixed []string
	tighten := func(path string, mode os.FileMode) error {
		info, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("embedded: data dir: %w", err)
		}
		if info.Mode().Perm() == mode {
			return nil
		}
		if err := os.Chmod(path, mode); err != nil {
			return fmt.Errorf("embedded: data dir: make %s private: %w", path, err)
		}
		fixed = append(fixed, path)
		return nil
	}
	if err := tighten(dir, 0o700); err != nil {
		return fixed, err
	}
	// The broker's secrets: kfake's SCRAM users (salted passwords,
	// enough to log in with SCRAM) and the super user's password.
	broker := []string{"sasl.json", "sasl.json.tmp", adminSecretFile}
	for _, name := range append(broker, secrets...) {
		if err := tighten(filepath.Join(dir, name), 0o600); err != nil {
			return fixed, err
		}
	}
	return fixed, nil
}

// randomSecret is 192 bits from crypto/rand, URL-safe.
func randomSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}
