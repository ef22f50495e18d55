package localkafka

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"software.sslmate.com/src/go-pkcs12"
)

// The secure shape: one node whose only client listener is SASL_SSL, with
// a CA made for its directory, SCRAM-SHA-512 and PLAIN users and ACLs.
// This file makes and reads what it keeps in DIR:
//
//	DIR/ca.pem                         the CA certificate clients trust (0644)
//	DIR/admin.properties               Java client properties, SCRAM-SHA-512, user admin (0600)
//	DIR/reader.properties              the same for user reader (0600)
//	DIR/reader-plain.properties        user reader with SASL/PLAIN (0600)
//	DIR/reader.librdkafka.properties   user reader in librdkafka's spelling (0600)
//	DIR/secrets/                       passwords.env, broker_jaas.conf, server.p12,
//	                                   keystore.pass, ca.key, broker.plain (0700 / 0600)
//
// Passwords are random per DIR and live only in 0600 files under the 0700
// DIR. The SCRAM users and the reader's ACLs are created through the
// broker's own PLAIN login once it serves (users.go).

// secrets are the passwords of a secure cluster, as DIR/secrets/passwords.env
// keeps them.
type secrets struct {
	Broker, Admin, Reader, Keystore string
}

// Users of the secure shape.
const (
	brokerUser = "broker"
	adminUser  = "admin"
	readerUser = "reader"
)

func (c *Cluster) secretsDir() string { return filepath.Join(c.dir, "secrets") }

// randomPassword is 18 random bytes, URL-safe base64: 24 characters.
func randomPassword() string { return rand.Text()[:24] }

// initSecure makes a fresh secure cluster's secrets, certificates and
// client files for a broker listening on port.
func (c *Cluster) initSecure(port int) error {
	if err := os.Chmod(c.dir, 0o700); err != nil {
		return err
	}
	s := c.secretsDir()
	if err := os.RemoveAll(s); err != nil {
		return err
	}
	if err := os.MkdirAll(s, 0o700); err != nil {
		return err
	}
	sec := secrets{Broker: randomPassword(), Admin: randomPassword(), Reader: randomPassword(), Keystore: randomPassword()}
	files := map[string]string{
		"passwords.env": fmt.Sprintf("# Offset Lab, secure cluster in %s: random per directory\nBROKER_PASSWORD=%s\nADMIN_PASSWORD=%s\nREADER_PASSWORD=%s\nKEYSTORE_PASSWORD=%s\n",
			c.dir, sec.Broker, sec.Admin, sec.Reader, sec.Keystore),
		"broker.plain":     brokerUser + "\n" + sec.Broker + "\n",
		"keystore.pass":    sec.Keystore + "\n",
		"broker_jaas.conf": brokerJAAS(sec),
	}
	caPEM, caKeyPEM, keystore, err := makeCertificates(filepath.Base(c.dir), sec.Keystore)
	if err != nil {
		return err
	}
	files["ca.key"] = string(caKeyPEM)
	files["server.p12"] = string(keystore)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(s, name), []byte(text), 0o600); err != nil {
			return err
		}
	}
	if err := os.WriteFile(c.caPath(), caPEM, 0o644); err != nil {
		return err
	}
	c.secrets = &sec
	return c.writeClientFiles(fmt.Sprintf("127.0.0.1:%d", port))
}

func (c *Cluster) caPath() string { return filepath.Join(c.dir, "ca.pem") }

// loadSecure reads the passwords of a secure cluster made earlier.
func (c *Cluster) loadSecure() error {
	b, err := os.ReadFile(filepath.Join(c.secretsDir(), "passwords.env"))
	if err != nil {
		return err
	}
	vars := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && !strings.HasPrefix(k, "#") {
			vars[k] = v
		}
	}
	sec := secrets{Broker: vars["BROKER_PASSWORD"], Admin: vars["ADMIN_PASSWORD"], Reader: vars["READER_PASSWORD"], Keystore: vars["KEYSTORE_PASSWORD"]}
	if sec.Broker == "" || sec.Admin == "" || sec.Reader == "" || sec.Keystore == "" {
		return errors.New("secrets/passwords.env lacks a password")
	}
	c.secrets = &sec
	return nil
}

// brokerJAAS is the broker's JAAS file (given to its JVM with
// -Djava.security.auth.login.config, as the apache/kafka image takes it):
// PLAIN users are checked against it, SCRAM users live in the cluster
// metadata, and the broker logs in to the controller and to itself as
// user broker.
func brokerJAAS(s secrets) string {
	return fmt.Sprintf(`KafkaServer {
  org.apache.kafka.common.security.plain.PlainLoginModule required
    username="broker" password="%s"
    user_broker="%s" user_admin="%s" user_reader="%s";
  org.apache.kafka.common.security.scram.ScramLoginModule required;
};
`, s.Broker, s.Broker, s.Admin, s.Reader)
}

// writeClientFiles writes the properties files Kafka's tools
// (--command-config), kcat (-F), confluent-kafka and Offset Lab take.
func (c *Cluster) writeClientFiles(bootstrap string) error {
	what := "the secure cluster in " + c.dir
	java := func(user, password, mechanism, module string) string {
		return fmt.Sprintf(`# Offset Lab: user %s of %s
# (kafka-*.sh --command-config FILE, go run ./cmd/server --command-config FILE)
bootstrap.servers=%s
security.protocol=SASL_SSL
sasl.mechanism=%s
sasl.jaas.config=org.apache.kafka.common.security.%s required username="%s" password="%s";
ssl.truststore.type=PEM
ssl.truststore.location=%s
`, user, what, bootstrap, mechanism, module, user, password, c.caPath())
	}
	s := c.secrets
	files := map[string]string{
		"admin.properties":        java(adminUser, s.Admin, "SCRAM-SHA-512", "scram.ScramLoginModule"),
		"reader.properties":       java(readerUser, s.Reader, "SCRAM-SHA-512", "scram.ScramLoginModule"),
		"reader-plain.properties": java(readerUser, s.Reader, "PLAIN", "plain.PlainLoginModule"),
		"reader.librdkafka.properties": fmt.Sprintf(`# Offset Lab: user reader of %s, in librdkafka's
# spelling (kcat -F FILE, confluent-kafka, go run ./cmd/server --command-config FILE)
bootstrap.servers=%s
security.protocol=SASL_SSL
sasl.mechanisms=SCRAM-SHA-512
sasl.username=reader
sasl.password=%s
ssl.ca.location=%s
`, what, bootstrap, s.Reader, c.caPath()),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(text), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// makeCertificates makes a CA for this directory only (EC P-256, ten
// years) and the broker's certificate signed by it (SANs 127.0.0.1 and
// localhost, 825 days), and returns the CA certificate and key as PEM and
// the broker's PKCS #12 keystore (key, certificate and CA) under password.
// EC P-256 is instant to generate and spoken by Java, Go and librdkafka
// alike.
func makeCertificates(tag, password string) (caPEM, caKeyPEM, keystore []byte, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	now := time.Now().Add(-time.Hour) // a clock a little behind still accepts it
	caTmpl := &x509.Certificate{
		SerialNumber: serial(), NotBefore: now, NotAfter: now.AddDate(10, 0, 0),
		Subject:               pkix.Name{Organization: []string{"Offset Lab"}, CommonName: "Offset Lab local CA " + tag},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), NotBefore: now, NotAfter: now.AddDate(0, 0, 825),
		Subject:               pkix.Name{Organization: []string{"Offset Lab"}, CommonName: "localhost"},
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, nil, err
	}
	keystore, err = pkcs12.Modern.Encode(key, cert, []*x509.Certificate{ca}, password)
	if err != nil {
		return nil, nil, nil, err
	}
	caKeyDER, err := x509.MarshalPKCS8PrivateKey(caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: caKeyDER}), keystore, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}

// brokerLogin is how this package's own clients (the readiness probes, the
// admin client that creates users and ACLs) reach a secure cluster: TLS
// trusting DIR/ca.pem, SASL/PLAIN as the broker's user, a super user.
// Nil for the other shapes.
func (c *Cluster) brokerLogin() ([]kgo.Opt, error) {
	if c.secrets == nil {
		return nil, nil
	}
	tlsCfg, err := c.clientTLS()
	if err != nil {
		return nil, err
	}
	return []kgo.Opt{
		kgo.DialTLSConfig(tlsCfg),
		kgo.SASL(plain.Auth{User: brokerUser, Pass: c.secrets.Broker}.AsMechanism()),
	}, nil
}

// clientTLS trusts DIR/ca.pem only.
func (c *Cluster) clientTLS() (*tls.Config, error) {
	caPEM, err := os.ReadFile(c.caPath())
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("%s holds no certificate", c.caPath())
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// jaasOption is the broker JVM's JAAS option for the secure shape.
func (c *Cluster) jaasOption() []string {
	if c.secrets == nil {
		return nil
	}
	return []string{"-Djava.security.auth.login.config=" + filepath.Join(c.secretsDir(), "broker_jaas.conf")}
}
