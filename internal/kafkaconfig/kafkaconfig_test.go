package kafkaconfig_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/kafkaconfig"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// The secrets used in the test files; none may ever appear in an error,
// a description or a printed Config.
var secrets = []string{"Pw-LEAK-1", "trustpass", "storepass", "keypass", "wrong-Pw-LEAK-2"}

// testdata is the absolute path of testdata/ (see testdata/make.sh).
func testdata(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// writeProps writes text to a properties file in a temp dir, after
// replacing {TD} by the testdata dir and {DIR} by the temp dir, and returns
// its path.
func writeProps(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	text = strings.NewReplacer("{TD}", testdata(t), "{DIR}", dir).Replace(text)
	path := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// inlinePEM is file's content as a properties value spread over lines
// with backslash continuations, the way Java's inline PEM settings are
// written.
func inlinePEM(t *testing.T, file string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testdata(t), file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(strings.TrimSpace(string(raw)), "\n", " \\\n    ")
}

// saslCredentials returns the user and password the mechanism of c sends,
// from the first SASL message (PLAIN: "\x00user\x00pass"; SCRAM: the
// client-first message, which names only the user).
func saslMechanism(t *testing.T, c *kafkaconfig.Config) sasl.Mechanism {
	t.Helper()
	cl, err := kgo.NewClient(append(c.Opts(), kgo.SeedBrokers("127.0.0.1:1"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	mechs, _ := cl.OptValue(kgo.SASL).([]sasl.Mechanism)
	if len(mechs) == 0 {
		return nil
	}
	return mechs[0]
}

func firstSASLMessage(t *testing.T, m sasl.Mechanism) string {
	t.Helper()
	_, msg, err := m.Authenticate(context.Background(), "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	return string(msg)
}

func clientID(t *testing.T, c *kafkaconfig.Config) string {
	t.Helper()
	cl, err := kgo.NewClient(append(c.Opts(), kgo.SeedBrokers("127.0.0.1:1"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	id, _ := cl.OptValue(kgo.ClientID).(string)
	return id
}

// noSecrets fails when any text shows one of the secrets.
func noSecrets(t *testing.T, what string, texts ...string) {
	t.Helper()
	for _, s := range secrets {
		for _, text := range texts {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the secret %q: %s", what, s, text)
			}
		}
	}
}

const caSubject = "CN=Test CA,O=Offset Lab test"
const clientSubject = "CN=reader,O=Offset Lab test"

func TestLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		props string
		want  kafkaconfig.Description
		// sasl is the first SASL message the client sends; "" for none
		sasl     string
		brokers  []string
		clientID string
	}{
		{
			name: "java SCRAM-SHA-512 over TLS with a PEM truststore (the secure shape's reader.properties)",
			props: `# as internal/localkafka's secure shape writes it
bootstrap.servers=127.0.0.1:9093, localhost:9094
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="reader" password="Pw-LEAK-1";
ssl.truststore.type=PEM
ssl.truststore.location={TD}/ca.pem
`,
			want: kafkaconfig.Description{SecurityProtocol: "SASL_SSL", SASLMechanism: "SCRAM-SHA-512", User: "reader",
				TLS: true, ServerCAs: []string{caSubject}, HostnameVerification: true, CertificateVerification: true},
			sasl:    "n,,n=reader,r=",
			brokers: []string{"127.0.0.1:9093", "localhost:9094"},
		},
		{
			name: "java PLAIN, quoted password with escapes, lower-case protocol",
			props: `security.protocol: sasl_ssl
sasl.mechanism plain
sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required \
    username='admin' \
    password="Pw-LEAK-1\\"q";
ssl.truststore.location={TD}/ca.pem`,
			want: kafkaconfig.Description{SecurityProtocol: "SASL_SSL", SASLMechanism: "PLAIN", User: "admin",
				TLS: true, ServerCAs: []string{caSubject}, HostnameVerification: true, CertificateVerification: true},
			sasl: "\x00admin\x00Pw-LEAK-1\"q",
		},
		{
			name: "SASL_PLAINTEXT SCRAM-SHA-256 with a delegation token, no TLS",
			props: `security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-256
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="tok" password="Pw-LEAK-1" tokenauth="true";`,
			want: kafkaconfig.Description{SecurityProtocol: "SASL_PLAINTEXT", SASLMechanism: "SCRAM-SHA-256", User: "tok"},
			sasl: "n,,n=tok,r=",
		},
		{
			name:  "plaintext by default, tuning keys ignored, client.id applied, byte order mark",
			props: "\ufeffbootstrap.servers=k:9092\nacks=all\ngroup.id=g\nrequest.timeout.ms=5000\nlinger.ms=5\nclient.id=inspector\n",
			want: kafkaconfig.Description{SecurityProtocol: "PLAINTEXT",
				IgnoredKeys: []string{"acks", "group.id", "linger.ms", "request.timeout.ms"}},
			brokers:  []string{"k:9092"},
			clientID: "inspector",
		},
		{
			name: "PKCS12 truststore written by keytool",
			props: `security.protocol=SSL
ssl.truststore.type=PKCS12
ssl.truststore.location={TD}/truststore.p12
ssl.truststore.password=trustpass`,
			want: kafkaconfig.Description{SecurityProtocol: "SSL", TLS: true, ServerCAs: []string{caSubject},
				HostnameVerification: true, CertificateVerification: true},
		},
		{
			name: "inline PEM truststore over continuation lines, hostname check off",
			props: "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.certificates=" + "{CA}" +
				"\nssl.endpoint.identification.algorithm=\n",
			want: kafkaconfig.Description{SecurityProtocol: "SSL", TLS: true, ServerCAs: []string{caSubject},
				HostnameVerification: false, CertificateVerification: true},
		},
		{
			name: "java PEM keystore with an encrypted PKCS#8 key (mutual TLS)",
			props: `security.protocol=SSL
ssl.truststore.type=PEM
ssl.truststore.location={TD}/ca.pem
ssl.keystore.type=PEM
ssl.keystore.location={TD}/client-keystore.pem
ssl.key.password=keypass`,
			want: kafkaconfig.Description{SecurityProtocol: "SSL", TLS: true, ServerCAs: []string{caSubject},
				ClientCertificate: clientSubject, HostnameVerification: true, CertificateVerification: true},
		},
		{
			name: "java PKCS12 keystore written by keytool",
			props: `security.protocol=SSL
ssl.truststore.location={TD}/ca.pem
ssl.keystore.type=PKCS12
ssl.keystore.location={TD}/keystore-keytool.p12
ssl.keystore.password=storepass
ssl.key.password=storepass`,
			want: kafkaconfig.Description{SecurityProtocol: "SSL", TLS: true, ServerCAs: []string{caSubject},
				ClientCertificate: clientSubject, HostnameVerification: true, CertificateVerification: true},
		},
		{
			name: "java inline keystore certificate chain and key",
			props: "security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.certificate.chain={CLIENT}\n" +
				"ssl.keystore.key={KEY}\nssl.truststore.certificates={CA}\n",
			want: kafkaconfig.Description{SecurityProtocol: "SSL", TLS: true, ServerCAs: []string{caSubject},
				ClientCertificate: clientSubject, HostnameVerification: true, CertificateVerification: true},
		},
		{
			name: "librdkafka SCRAM with ssl.ca.location (the secure shape's reader.librdkafka.properties)",
			props: `bootstrap.servers=127.0.0.1:9093
security.protocol=SASL_SSL
sasl.mechanisms=SCRAM-SHA-512
sasl.username=reader
sasl.password=Pw-LEAK-1
ssl.ca.location={TD}/ca.pem
debug=broker
`,
			want: kafkaconfig.Description{SecurityProtocol: "SASL_SSL", SASLMechanism: "SCRAM-SHA-512", User: "reader",
				TLS: true, ServerCAs: []string{caSubject}, HostnameVerification: true, CertificateVerification: true,
				IgnoredKeys: []string{"debug"}},
			sasl:    "n,,n=reader,r=",
			brokers: []string{"127.0.0.1:9093"},
		},
		{
			name: "librdkafka PLAIN via the sasl.mechanism alias, metadata.broker.list",
			props: `metadata.broker.list=b1:9092
security.protocol=SASL_SSL
sasl.mechanism=PLAIN
sasl.username=reader
sasl.password=Pw-LEAK-1`,
			want: kafkaconfig.Description{SecurityProtocol: "SASL_SSL", SASLMechanism: "PLAIN", User: "reader",
				TLS: true, HostnameVerification: true, CertificateVerification: true},
			sasl:    "\x00reader\x00Pw-LEAK-1",
			brokers: []string{"b1:9092"},
		},
		{
			name: "librdkafka mutual TLS with an encrypted key",
			props: `security.protocol=SSL
ssl.ca.location={TD}/ca.pem
ssl.certificate.location={TD}/client.pem
ssl.key.location={TD}/client-encrypted.key
ssl.key.password=keypass`,
			want: kafkaconfig.Description{SecurityProtocol: "SSL", TLS: true, ServerCAs: []string{caSubject},
				ClientCertificate: clientSubject, HostnameVerification: true, CertificateVerification: true},
		},
		{
			name: "librdkafka PKCS12 keystore, no name check, no verification",
			props: `security.protocol=SSL
ssl.keystore.location={TD}/keystore.p12
ssl.keystore.password=storepass
ssl.endpoint.identification.algorithm=none
enable.ssl.certificate.verification=false`,
			want: kafkaconfig.Description{SecurityProtocol: "SSL", TLS: true, ClientCertificate: clientSubject,
				HostnameVerification: false, CertificateVerification: false},
		},
		{
			name:  "librdkafka CA directory",
			props: "security.protocol=SSL\nssl.ca.location={TD}\n",
			want: kafkaconfig.Description{SecurityProtocol: "SSL", TLS: true, ServerCAs: []string{caSubject, clientSubject},
				HostnameVerification: true, CertificateVerification: true},
		},
		{
			name:  "librdkafka probe: the system's CAs",
			props: "security.protocol=SSL\nssl.ca.location=probe\nssl.endpoint.identification.algorithm=https\n",
			want: kafkaconfig.Description{SecurityProtocol: "SSL", TLS: true,
				HostnameVerification: true, CertificateVerification: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := strings.NewReplacer("{CA}", inlinePEM(t, "ca.pem"), "{CLIENT}", inlinePEM(t, "client.pem"),
				"{KEY}", inlinePEM(t, "client.key")).Replace(tt.props)
			path := writeProps(t, text)
			c, err := kafkaconfig.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			got := c.Describe()
			want := tt.want
			want.File = path
			if fmt.Sprint(got) != fmt.Sprint(want) || got.File != want.File ||
				!slices.Equal(got.ServerCAs, want.ServerCAs) || !slices.Equal(got.IgnoredKeys, want.IgnoredKeys) ||
				got.ClientCertificate != want.ClientCertificate || got.HostnameVerification != want.HostnameVerification {
				t.Errorf("Describe\n got  %+v\n want %+v", got, want)
			}
			if !slices.Equal(c.BootstrapServers(), tt.brokers) {
				t.Errorf("bootstrap servers %q, want %q", c.BootstrapServers(), tt.brokers)
			}
			if id := clientID(t, c); tt.clientID != "" && id != tt.clientID {
				t.Errorf("client id %q, want %q", id, tt.clientID)
			}
			m := saslMechanism(t, c)
			switch {
			case tt.sasl == "" && m != nil:
				t.Errorf("SASL %s, want none", m.Name())
			case tt.sasl != "" && m == nil:
				t.Errorf("no SASL, want %q", tt.sasl)
			case m != nil:
				if m.Name() != want.SASLMechanism {
					t.Errorf("SASL %s, want %s", m.Name(), want.SASLMechanism)
				}
				if msg := firstSASLMessage(t, m); !strings.HasPrefix(msg, tt.sasl) {
					t.Errorf("first SASL message %q, want it to start with %q", msg, tt.sasl)
				}
			}
			if (c.TLSConfig() != nil) != want.TLS {
				t.Errorf("TLSConfig %v, want TLS=%v", c.TLSConfig(), want.TLS)
			}
			if want.ClientCertificate != "" && len(c.TLSConfig().Certificates) != 1 {
				t.Errorf("no client certificate in the TLS config")
			}
			raw, err := json.Marshal(c.Describe())
			if err != nil {
				t.Fatal(err)
			}
			var logged strings.Builder
			slog.New(slog.NewTextHandler(&logged, nil)).Info("connect", "config", c)
			noSecrets(t, "a loaded Config", fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c),
				fmt.Sprintf("%+v", *c), fmt.Sprintf("%v", c.Describe()), string(raw), logged.String())
		})
	}
}

// pemFile writes a key of its own or a certificate into dir and returns
// the path.
func otherKey(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "other.key")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadRefuses(t *testing.T) {
	t.Parallel()
	const scram = "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n" +
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="reader" password="Pw-LEAK-1";` + "\n"
	tests := []struct {
		name     string
		props    string // "" with path: not written
		path     string // a path to load instead of a written file
		msgKey   string
		key      string // the setting named
		line     int
		contains []string
	}{
		{name: "missing file", path: "/nonexistent/offsetlab/client.properties", msgKey: "error.commandConfig.fileMissing",
			contains: []string{"/nonexistent/offsetlab/client.properties: no such file"}},
		{name: "a directory", path: "{TD}", msgKey: "error.commandConfig.fileUnreadable", contains: []string{"is a directory"}},
		{name: "malformed line", props: "security.protocol=SSL\n{\"json\": true}\n", msgKey: "error.commandConfig.malformedLine", line: 2,
			contains: []string{"client.properties:2: not a key=value setting"}},
		{name: "stray password on a line of its own", props: "security.protocol=SSL\nwrong-Pw-LEAK-2\n", msgKey: "error.commandConfig.malformedLine", line: 2},
		{name: "bad unicode escape", props: "client.id=\\uZZZZ", msgKey: "error.commandConfig.badEscape", key: "client.id", line: 1,
			contains: []string{`client.properties:1: client.id: malformed \uxxxx escape`}},
		{name: "value without a key", props: "client.id=x\n = y\n", msgKey: "error.commandConfig.valueWithoutKey", line: 2},
		{name: "unknown keys, all at once, with suggestions",
			props:  "security.protocol=PLAINTEXT\nsasl.mechansim=PLAIN\nbootstrap.server=x:1\nmy.own.setting=wrong-Pw-LEAK-2\n",
			msgKey: "error.commandConfig.unknownKeys",
			contains: []string{"sasl.mechansim (line 2; did you mean sasl.mechanism?)", "bootstrap.server (line 3; did you mean bootstrap.servers?)",
				"my.own.setting (line 4)"}},
		{name: "unknown and unsupported keys in one error",
			props:    "sasl.client.callback.handler.class=com.example.Handler\nfoo=bar\nssl.engine.factory.class=x.Y\n",
			msgKey:   "error.commandConfig.unknownAndUnsupportedKeys",
			contains: []string{"foo (line 2)", "sasl.client.callback.handler.class (line 1)", "ssl.engine.factory.class (line 3)"}},
		{name: "unsupported key", props: "ssl.crl.location=/x.crl\n", msgKey: "error.commandConfig.unsupportedKeys",
			contains: []string{"cannot honour: ssl.crl.location (line 1)"}},
		{name: "bad security.protocol", props: "security.protocol=TLS\n", msgKey: "error.commandConfig.badValue", key: "security.protocol", line: 1,
			contains: []string{"TLS is not a valid value; use PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"}},
		{name: "unsupported mechanism", props: "security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n", msgKey: "error.commandConfig.unsupportedMechanism",
			key: "sasl.mechanism", line: 2, contains: []string{"GSSAPI is not supported"}},
		{name: "unsupported mechanism, librdkafka", props: "security.protocol=SASL_SSL\nsasl.mechanisms=OAUTHBEARER\n", msgKey: "error.commandConfig.unsupportedMechanism",
			key: "sasl.mechanisms", line: 2},
		{name: "SASL without a mechanism", props: "security.protocol=SASL_SSL\nsasl.username=u\nsasl.password=Pw-LEAK-1\n", msgKey: "error.commandConfig.mechanismMissing",
			key: "security.protocol", line: 1, contains: []string{"GSSAPI"}},
		{name: "missing username in the JAAS line", props: "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required password="Pw-LEAK-1";`,
			msgKey: "error.commandConfig.usernameMissing", key: "sasl.jaas.config", line: 3},
		{name: "missing username, librdkafka", props: "security.protocol=SASL_SSL\nsasl.mechanisms=PLAIN\nsasl.password=Pw-LEAK-1\n",
			msgKey: "error.commandConfig.usernameMissing", key: "sasl.mechanisms", line: 2},
		{name: "no credentials at all", props: "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\n",
			msgKey: "error.commandConfig.usernameMissing", key: "sasl.mechanism", line: 2},
		{name: "missing password", props: "security.protocol=SASL_SSL\nsasl.mechanisms=PLAIN\nsasl.username=u\n",
			msgKey: "error.commandConfig.passwordMissing", key: "sasl.username", line: 3},
		{name: "JAAS without ;", props: "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="Pw-LEAK-1"`,
			msgKey: "error.commandConfig.jaasSyntax", key: "sasl.jaas.config", line: 3, contains: []string{"it must end with ';'"}},
		{name: "Kerberos login module", props: "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n" +
			`sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="/k" principal="wrong-Pw-LEAK-2";`,
			msgKey: "error.commandConfig.jaasModule", key: "sasl.jaas.config", contains: []string{"Krb5LoginModule"}},
		{name: "unknown login option", props: "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="Pw-LEAK-1" serviceName="wrong-Pw-LEAK-2";`,
			msgKey: "error.commandConfig.jaasOption", key: "sasl.jaas.config", contains: []string{"option serviceName"}},
		{name: "both spellings of the user", props: scram + "sasl.username=reader\n",
			msgKey: "error.commandConfig.conflict", key: "sasl.username", line: 4, contains: []string{"conflicts with sasl.jaas.config"}},
		{name: "mechanisms disagree", props: "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.mechanisms=SCRAM-SHA-256\nsasl.username=u\nsasl.password=Pw-LEAK-1\n",
			msgKey: "error.commandConfig.conflict", key: "sasl.mechanisms", line: 3},
		{name: "SASL settings without a SASL protocol", props: "bootstrap.servers=h:1\nsasl.mechanism=PLAIN\n",
			msgKey: "error.commandConfig.notUsedByProtocol", key: "sasl.mechanism", line: 2, contains: []string{"PLAINTEXT, which does not use SASL"}},
		{name: "TLS settings without TLS", props: "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.username=u\nsasl.password=Pw-LEAK-1\nssl.truststore.location={TD}/ca.pem\n",
			msgKey: "error.commandConfig.notUsedByProtocol", key: "ssl.truststore.location", line: 5, contains: []string{"use security.protocol=SASL_SSL"}},
		{name: "bad bootstrap server", props: "bootstrap.servers=localhost\n", msgKey: "error.commandConfig.badServer", key: "bootstrap.servers", line: 1},
		{name: "truststore missing", props: "security.protocol=SSL\nssl.truststore.location={DIR}/nope.pem\n",
			msgKey: "error.commandConfig.storeMissing", key: "ssl.truststore.location", line: 2, contains: []string{"nope.pem does not exist"}},
		{name: "wrong truststore password", props: "security.protocol=SSL\nssl.truststore.type=PKCS12\nssl.truststore.location={TD}/truststore.p12\nssl.truststore.password=wrong-Pw-LEAK-2\n",
			msgKey: "error.commandConfig.wrongPassword", key: "ssl.truststore.password", line: 4, contains: []string{"the password does not open", "truststore.p12"}},
		{name: "wrong truststore password, openssl store", props: "security.protocol=SSL\nssl.truststore.location={TD}/truststore-openssl.p12\nssl.truststore.password=wrong-Pw-LEAK-2\n",
			msgKey: "error.commandConfig.wrongPassword", key: "ssl.truststore.password", line: 3},
		{name: "openssl PKCS12 truststore without Java's trust marks", props: "security.protocol=SSL\nssl.truststore.location={TD}/truststore-openssl.p12\nssl.truststore.password=trustpass\n",
			msgKey: "error.commandConfig.untrustedPKCS12", key: "ssl.truststore.location", line: 2, contains: []string{"keytool -importcert"}},
		{name: "truststore password missing", props: "security.protocol=SSL\nssl.truststore.location={TD}/truststore.p12\n",
			msgKey: "error.commandConfig.storePasswordNeeded", key: "ssl.truststore.location", line: 2, contains: []string{"set ssl.truststore.password"}},
		{name: "JKS truststore by type", props: "security.protocol=SSL\nssl.truststore.type=JKS\nssl.truststore.location={TD}/truststore.jks\nssl.truststore.password=trustpass\n",
			msgKey: "error.commandConfig.jks", key: "ssl.truststore.location", line: 3,
			contains: []string{"keytool -importkeystore -srckeystore {TD}/truststore.jks -destkeystore {TD}/truststore.jks.p12 -deststoretype PKCS12"}},
		{name: "JKS truststore by magic bytes", props: "security.protocol=SSL\nssl.truststore.type=PKCS12\nssl.truststore.location={TD}/truststore.jks\n",
			msgKey: "error.commandConfig.jks", key: "ssl.truststore.location", line: 3, contains: []string{"is a JKS keystore"}},
		{name: "JKS keystore", props: "security.protocol=SSL\nssl.keystore.location={TD}/keystore.jks\nssl.keystore.password=storepass\n",
			msgKey: "error.commandConfig.jks", key: "ssl.keystore.location", line: 2,
			contains: []string{"keytool -importkeystore -srckeystore {TD}/keystore.jks -destkeystore {TD}/keystore.jks.p12 -deststoretype PKCS12"}},
		{name: "PEM truststore with a password", props: "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={TD}/ca.pem\nssl.truststore.password=trustpass\n",
			msgKey: "error.commandConfig.pemStorePassword", key: "ssl.truststore.password", line: 4},
		{name: "unsupported store type", props: "security.protocol=SSL\nssl.truststore.type=BCFKS\n",
			msgKey: "error.commandConfig.storeType", key: "ssl.truststore.type", line: 2},
		{name: "wrong keystore password", props: "security.protocol=SSL\nssl.keystore.location={TD}/keystore-keytool.p12\nssl.keystore.password=wrong-Pw-LEAK-2\n",
			msgKey: "error.commandConfig.wrongPassword", key: "ssl.keystore.password", line: 3},
		{name: "encrypted key without a password", props: "security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.location={TD}/client-keystore.pem\n",
			msgKey: "error.commandConfig.keyPasswordNeeded", key: "ssl.keystore.location", line: 3, contains: []string{"set ssl.key.password"}},
		{name: "wrong key password", props: "security.protocol=SSL\nssl.certificate.location={TD}/client.pem\nssl.key.location={TD}/client-encrypted.key\nssl.key.password=wrong-Pw-LEAK-2\n",
			msgKey: "error.commandConfig.keyWrongPassword", key: "ssl.key.password", line: 4},
		{name: "legacy encrypted key", props: "security.protocol=SSL\nssl.certificate.location={TD}/client.pem\nssl.key.location={TD}/client-legacy.key\nssl.key.password=keypass\n",
			msgKey: "error.commandConfig.legacyEncryptedKey", key: "ssl.key.location", line: 3, contains: []string{"openssl pkcs8 -topk8"}},
		{name: "key of another certificate", props: "security.protocol=SSL\nssl.certificate.location={TD}/client.pem\nssl.key.location={OTHER}\n",
			msgKey: "error.commandConfig.keyMismatch", key: "ssl.certificate.location", line: 2, contains: []string{clientSubject}},
		{name: "certificate without key", props: "security.protocol=SSL\nssl.certificate.location={TD}/client.pem\n",
			msgKey: "error.commandConfig.certificateWithoutKey", key: "ssl.certificate.location", line: 2},
		{name: "key without certificate", props: "security.protocol=SSL\nssl.key.location={TD}/client.key\n",
			msgKey: "error.commandConfig.keyWithoutCertificate", key: "ssl.key.location", line: 2},
		{name: "truststore in both spellings", props: "security.protocol=SSL\nssl.truststore.location={TD}/ca.pem\nssl.ca.location={TD}/ca.pem\n",
			msgKey: "error.commandConfig.conflict", key: "ssl.ca.location", line: 3},
		{name: "bad endpoint identification", props: "security.protocol=SSL\nssl.endpoint.identification.algorithm=ldaps\n",
			msgKey: "error.commandConfig.badValue", key: "ssl.endpoint.identification.algorithm", line: 2},
		{name: "truststore password without a truststore (a typo in its key)", props: "security.protocol=SSL\nssl.trustore.location={TD}/truststore.p12\nssl.truststore.password=trustpass\n",
			msgKey: "error.commandConfig.unknownKeys", contains: []string{"did you mean ssl.truststore.location?"}},
		{name: "truststore password without a truststore", props: "security.protocol=SSL\nssl.truststore.password=trustpass\n",
			msgKey: "error.commandConfig.settingWithoutStore", key: "ssl.truststore.password", line: 2},
		{name: "key password without a key", props: "security.protocol=SSL\nssl.ca.location={TD}/ca.pem\nssl.key.password=keypass\n",
			msgKey: "error.commandConfig.settingWithoutStore", key: "ssl.key.password", line: 3},
		{name: "not a certificate", props: "security.protocol=SSL\nssl.ca.location={TD}/client.key\n",
			msgKey: "error.commandConfig.noCertificate", key: "ssl.ca.location", line: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			td := testdata(t)
			path := strings.ReplaceAll(tt.path, "{TD}", td)
			if tt.path == "" {
				path = writeProps(t, strings.ReplaceAll(tt.props, "{OTHER}", otherKey(t)))
			}
			c, err := kafkaconfig.Load(path)
			if err == nil {
				t.Fatalf("loaded %v, want an error", c)
			}
			var e *problem.Error
			if !errors.As(err, &e) || e.Kind != problem.Invalid {
				t.Fatalf("%v is no problem.Invalid error", err)
			}
			msgKey, args := e.Message.Key, e.Message.Args
			if msgKey != tt.msgKey {
				t.Errorf("catalogue key %s, want %s (%v)", msgKey, tt.msgKey, err)
			}
			if args["file"] != path || !strings.HasPrefix(err.Error(), path) {
				t.Errorf("error %q names file %q, want %q first", err, args["file"], path)
			}
			if args["key"] != tt.key || (tt.key != "" && !strings.Contains(err.Error(), tt.key)) {
				t.Errorf("error %q is about key %q, want %q", err, args["key"], tt.key)
			}
			if tt.line != 0 && args["line"] != strconv.Itoa(tt.line) {
				t.Errorf("error %q is about line %s, want %d", err, args["line"], tt.line)
			}
			for _, want := range tt.contains {
				if want = strings.ReplaceAll(want, "{TD}", td); !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if !catalog.Has(msgKey) {
				t.Fatalf("catalogue key %s is missing from the catalogue", msgKey)
			}
			if ko := catalog.Text(catalog.Korean, msgKey, args); strings.Contains(ko, "{") && !strings.Contains(err.Error(), "{") {
				t.Errorf("the Korean sentence %q leaves a placeholder unfilled", ko)
			}
			var argValues []string
			for _, v := range args {
				argValues = append(argValues, v)
			}
			noSecrets(t, "the error", err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), strings.Join(argValues, " "))
		})
	}
}

// TestMessages: every refusal sentence of this package is in the
// catalogue in both languages.
func TestMessages(t *testing.T) {
	t.Parallel()
	n := 0
	for _, k := range catalog.Keys(catalog.English) {
		if !strings.HasPrefix(k, "error.commandConfig.") {
			continue
		}
		n++
		if ko, ok := catalog.Sentence(catalog.Korean, k); !ok || ko == "" {
			t.Errorf("key %s has no Korean sentence", k)
		}
	}
	if n < 30 {
		t.Errorf("only %d error.commandConfig. sentences in the catalogue", n)
	}
}
