package kafkaconfig

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Load reads the properties file at path. See the package doc for what it
// accepts and refuses; every error is an *problem.Error wrapping ErrInvalid.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		args := map[string]string{"file": path, "where": path}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, refusal(keyFileMissing, args, err)
		}
		reason := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			reason = pe.Err.Error()
		}
		args["reason"] = reason
		return nil, refusal(keyFileUnreadable, args, err)
	}
	// a byte order mark is no part of the first key
	props, err := parseProperties(strings.TrimPrefix(string(data), "\ufeff"))
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			args := map[string]string{"file": path, "line": strconv.Itoa(se.line), "where": where(path, se.line, se.key)}
			if se.key != "" {
				args["key"] = se.key
			}
			return nil, refusal(se.msgKey, args, nil)
		}
		return nil, err
	}
	l := &loader{file: path, props: map[string]property{}}
	for _, p := range props {
		l.props[p.key] = p // a later line wins, as in java.util.Properties
	}
	return l.load()
}

// loader interprets the settings of one file.
type loader struct {
	file  string
	props map[string]property
}

func (l *loader) has(key string) bool { _, ok := l.props[key]; return ok }
func (l *loader) get(key string) string {
	return l.props[key].value
}

// errAt is the error msgKey about key, with the placeholders in kv (pairs).
func (l *loader) errAt(key, msgKey string, kv ...string) *problem.Error {
	line := l.props[key].line
	args := map[string]string{"file": l.file, "key": key, "where": where(l.file, line, key)}
	if line > 0 {
		args["line"] = strconv.Itoa(line)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		args[kv[i]] = kv[i+1]
	}
	return refusal(msgKey, args, nil)
}

// conflicts refuses a file that sets more than one of keys: the later one
// (by line) is named, the earlier one is the "other".
func (l *loader) conflicts(keys ...string) *problem.Error {
	var set []property
	for _, k := range keys {
		if p, ok := l.props[k]; ok {
			set = append(set, p)
		}
	}
	if len(set) < 2 {
		return nil
	}
	slices.SortFunc(set, func(a, b property) int { return a.line - b.line })
	return l.errAt(set[1].key, keyConflict, "other", set[0].key)
}

// sorted returns the settings in file order.
func (l *loader) sorted() []property {
	out := make([]property, 0, len(l.props))
	for _, p := range l.props {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b property) int { return a.line - b.line })
	return out
}

func (l *loader) load() (*Config, error) {
	c := &Config{file: l.file, secret: &credentials{}}
	if err := l.checkKeys(c); err != nil {
		return nil, err
	}
	steps := []func(*Config) *problem.Error{l.servers, l.protocol, l.sasl, l.tlsSettings}
	for _, step := range steps {
		if err := step(c); err != nil {
			return nil, err
		}
	}
	c.registryURL = l.get("schema.registry.url")
	for _, k := range []string{"basic.auth.user.info", "schema.registry.basic.auth.user.info"} {
		if user, pass, ok := strings.Cut(l.get(k), ":"); ok {
			c.registryUser, c.secret.registryPassword = user, pass
		}
	}
	c.desc.File = l.file
	c.desc.SecurityProtocol = c.protocol
	c.desc.SASLMechanism = c.mechanism
	c.desc.User = c.user
	return c, nil
}

// checkKeys refuses unknown and unsupported keys, all in one error, and
// records the ignored ones.
func (l *loader) checkKeys(c *Config) *problem.Error {
	var unknown, unsupported []string
	for _, p := range l.sorted() {
		switch classify(p.key) {
		case ignoredKey:
			c.desc.IgnoredKeys = append(c.desc.IgnoredKeys, p.key)
		case unsupportedKey:
			unsupported = append(unsupported, fmt.Sprintf("%s (line %d)", p.key, p.line))
		case unknownKey:
			if p.bare {
				// a word alone on a line: maybe a stray password, never echoed
				return refusal(keyMalformedLine, map[string]string{
					"file": l.file, "line": strconv.Itoa(p.line), "where": where(l.file, p.line, "")}, nil)
			}
			s := fmt.Sprintf("%s (line %d", p.key, p.line)
			if hint := suggest(p.key); hint != "" {
				s += "; did you mean " + hint + "?"
			}
			unknown = append(unknown, s+")")
		}
	}
	slices.Sort(c.desc.IgnoredKeys)
	args := map[string]string{"file": l.file, "where": l.file}
	switch {
	case len(unknown) > 0 && len(unsupported) > 0:
		args["unknown"], args["unsupported"] = strings.Join(unknown, ", "), strings.Join(unsupported, ", ")
		return refusal(keyUnknownUnsupported, args, nil)
	case len(unknown) > 0:
		args["keys"] = strings.Join(unknown, ", ")
		return refusal(keyUnknownKeys, args, nil)
	case len(unsupported) > 0:
		args["keys"] = strings.Join(unsupported, ", ")
		return refusal(keyUnsupportedKeys, args, nil)
	}
	return nil
}

// servers reads bootstrap.servers (or metadata.broker.list) and client.id.
func (l *loader) servers(c *Config) *problem.Error {
	key := "bootstrap.servers"
	if l.has("metadata.broker.list") {
		if l.has(key) && l.get(key) != l.get("metadata.broker.list") {
			return l.conflicts(key, "metadata.broker.list")
		}
		key = "metadata.broker.list"
	}
	for _, s := range strings.Split(l.get(key), ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		host, port, err := net.SplitHostPort(s)
		if err != nil || host == "" {
			return l.errAt(key, keyBadServer, "server", s)
		}
		if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return l.errAt(key, keyBadServer, "server", s)
		}
		c.brokers = append(c.brokers, s)
	}
	c.clientID = l.get("client.id")
	return nil
}

// protocol reads security.protocol (default PLAINTEXT, as in both clients).
func (l *loader) protocol(c *Config) *problem.Error {
	c.protocol = Plaintext
	if !l.has("security.protocol") {
		return nil
	}
	v := strings.ToUpper(strings.TrimSpace(l.get("security.protocol")))
	switch v {
	case Plaintext, SSL, SASLPlaintext, SASLSSL:
		c.protocol = v
		return nil
	}
	return l.errAt("security.protocol", keyBadValue, "value", l.get("security.protocol"),
		"allowed", "PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL")
}

// sasl reads the mechanism and the user's credentials.
func (l *loader) sasl(c *Config) *problem.Error {
	saslKeys := []string{"sasl.mechanism", "sasl.mechanisms", "sasl.jaas.config", "sasl.username", "sasl.password"}
	usesSASL := c.protocol == SASLPlaintext || c.protocol == SASLSSL
	if !usesSASL {
		for _, p := range l.sorted() {
			if slices.Contains(saslKeys, p.key) {
				suggested := "SASL_SSL"
				if c.protocol == Plaintext {
					suggested = "SASL_SSL or SASL_PLAINTEXT"
				}
				return l.errAt(p.key, keyNotUsed, "protocol", c.protocol, "layer", "SASL", "suggested", "security.protocol="+suggested)
			}
		}
		return nil
	}
	mechKey := "sasl.mechanism"
	if l.has("sasl.mechanisms") {
		if l.has(mechKey) && !strings.EqualFold(strings.TrimSpace(l.get(mechKey)), strings.TrimSpace(l.get("sasl.mechanisms"))) {
			return l.conflicts(mechKey, "sasl.mechanisms")
		}
		mechKey = "sasl.mechanisms"
	}
	mech := strings.ToUpper(strings.TrimSpace(l.get(mechKey)))
	switch mech {
	case "":
		return l.errAt("security.protocol", keyMechanismMissing, "protocol", c.protocol)
	case MechanismPlain, MechanismSCRAMSHA256, MechanismSCRAMSHA512:
	default:
		return l.errAt(mechKey, keyMechanism, "mechanism", l.get(mechKey))
	}
	c.mechanism = mech

	if l.has("sasl.jaas.config") {
		for _, k := range []string{"sasl.username", "sasl.password"} {
			if l.has(k) {
				return l.conflicts("sasl.jaas.config", k)
			}
		}
		return l.jaas(c)
	}
	if !l.has("sasl.username") || strings.TrimSpace(l.get("sasl.username")) == "" {
		key := "sasl.username"
		if !l.has(key) {
			key = mechKey
		}
		return l.errAt(key, keyUsernameMissing, "mechanism", mech)
	}
	if !l.has("sasl.password") {
		return l.errAt("sasl.username", keyPasswordMissing, "mechanism", mech)
	}
	c.user = l.get("sasl.username")
	c.secret.password = l.get("sasl.password")
	return nil
}

// jaas reads the user from sasl.jaas.config.
func (l *loader) jaas(c *Config) *problem.Error {
	const key = "sasl.jaas.config"
	e, err := parseJAAS(l.get(key))
	if err != nil {
		return l.errAt(key, keyJAASSyntax, "reason", err.Error())
	}
	var allowed []string
	switch e.module {
	case plainLoginModule:
		allowed = []string{"username", "password"}
	case scramLoginModule:
		allowed = []string{"username", "password", "tokenauth"}
	default:
		return l.errAt(key, keyJAASModule, "module", e.module)
	}
	for _, name := range e.order {
		if !slices.Contains(allowed, name) {
			return l.errAt(key, keyJAASOption, "option", name)
		}
	}
	// Java's clients take username and password from whichever of the two
	// modules is named, so a PlainLoginModule line works with SCRAM too;
	// tokenauth only means something to SCRAM.
	if e.module == scramLoginModule && !strings.HasPrefix(c.mechanism, "SCRAM-") && e.options["tokenauth"] != "" {
		return l.errAt(key, keyJAASOption, "option", "tokenauth")
	}
	user, ok := e.options["username"]
	if !ok || strings.TrimSpace(user) == "" {
		return l.errAt(key, keyUsernameMissing, "mechanism", c.mechanism)
	}
	password, ok := e.options["password"]
	if !ok {
		return l.errAt(key, keyPasswordMissing, "mechanism", c.mechanism)
	}
	if t, ok := e.options["tokenauth"]; ok {
		switch strings.ToLower(t) {
		case "true":
			c.secret.tokenAuth = true
		case "false":
		default:
			return l.errAt(key, keyJAASOption, "option", "tokenauth")
		}
	}
	c.user, c.secret.password = user, password
	return nil
}

// tlsKeys are the settings that only mean something with TLS.
func tlsKeys() []string {
	return []string{
		"ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.certificates",
		"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password",
		"ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.key.password",
		"ssl.endpoint.identification.algorithm", "ssl.ca.location", "ssl.ca.pem",
		"ssl.certificate.location", "ssl.certificate.pem", "ssl.key.location", "ssl.key.pem",
		"enable.ssl.certificate.verification",
	}
}

// tlsSettings builds the TLS configuration.
func (l *loader) tlsSettings(c *Config) *problem.Error {
	if c.protocol != SSL && c.protocol != SASLSSL {
		for _, p := range l.sorted() {
			if slices.Contains(tlsKeys(), p.key) {
				suggested := "SASL_SSL"
				if c.protocol == Plaintext {
					suggested = "SSL or SASL_SSL"
				}
				return l.errAt(p.key, keyNotUsed, "protocol", c.protocol, "layer", "TLS", "suggested", "security.protocol="+suggested)
			}
		}
		return nil
	}
	for _, k := range []string{"ssl.truststore.type", "ssl.keystore.type"} {
		switch strings.ToUpper(strings.TrimSpace(l.get(k))) {
		case "", "PEM", "PKCS12", "JKS":
		default:
			return l.errAt(k, keyStoreType, "value", l.get(k))
		}
	}
	hostnames := true
	if l.has("ssl.endpoint.identification.algorithm") {
		switch strings.ToLower(strings.TrimSpace(l.get("ssl.endpoint.identification.algorithm"))) {
		case "https":
		case "", "none":
			hostnames = false
		default:
			return l.errAt("ssl.endpoint.identification.algorithm", keyBadValue,
				"value", l.get("ssl.endpoint.identification.algorithm"),
				"allowed", "https (check the broker's host name), or an empty value (Java) or none (librdkafka) to skip that check")
		}
	}
	verify := true
	if l.has("enable.ssl.certificate.verification") {
		switch strings.ToLower(strings.TrimSpace(l.get("enable.ssl.certificate.verification"))) {
		case "true", "1":
		case "false", "0":
			verify = false
		default:
			return l.errAt("enable.ssl.certificate.verification", keyBadValue,
				"value", l.get("enable.ssl.certificate.verification"), "allowed", "true or false")
		}
	}
	if err := l.orphans(); err != nil {
		return err
	}
	roots, system, err := l.trust()
	if err != nil {
		return err
	}
	cert, err := l.clientCertificate()
	if err != nil {
		return err
	}

	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	var pool *x509.CertPool
	if !system {
		pool = x509.NewCertPool()
		for _, r := range roots {
			pool.AddCert(r)
			c.desc.ServerCAs = append(c.desc.ServerCAs, r.Subject.String())
		}
		cfg.RootCAs = pool
	}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
		c.desc.ClientCertificate = cert.Leaf.Subject.String()
	}
	switch {
	case !verify:
		// librdkafka's enable.ssl.certificate.verification=false: the file's
		// owner asked for it, and Describe says so
		cfg.InsecureSkipVerify = true
	case !hostnames:
		// the chain is still verified against the roots; only the name
		// check is skipped, as Java does with an empty algorithm
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = verifyChainOnly(pool)
	}
	c.tls = cfg
	c.desc.TLS = true
	c.desc.HostnameVerification = hostnames && verify
	c.desc.CertificateVerification = verify
	return nil
}

// orphans refuses a store setting (type, password) that goes with no
// store: Kafka's clients ignore one, which usually hides a typo in the
// store's own key.
func (l *loader) orphans() *problem.Error {
	rules := []struct {
		keys   []string
		stores []string
		hint   string
	}{
		{[]string{"ssl.truststore.type", "ssl.truststore.password"},
			[]string{"ssl.truststore.location", "ssl.truststore.certificates"},
			"ssl.truststore.location or ssl.truststore.certificates"},
		{[]string{"ssl.keystore.type", "ssl.keystore.password"},
			[]string{"ssl.keystore.location", "ssl.keystore.certificate.chain", "ssl.keystore.key"},
			"ssl.keystore.location, or ssl.keystore.certificate.chain and ssl.keystore.key"},
		{[]string{"ssl.key.password"},
			[]string{"ssl.keystore.location", "ssl.keystore.key", "ssl.key.location", "ssl.key.pem", "ssl.certificate.location"},
			"ssl.keystore.location, ssl.keystore.key or ssl.key.location"},
	}
	for _, r := range rules {
		if slices.ContainsFunc(r.stores, l.has) {
			continue
		}
		for _, k := range r.keys {
			if l.has(k) {
				return l.errAt(k, keyNoStore, "storeKey", r.hint)
			}
		}
	}
	return nil
}

// verifyChainOnly verifies the server's chain against roots (nil: the
// system's) without checking its name.
func verifyChainOnly(roots *x509.CertPool) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("kafkaconfig: the server sent no certificate")
		}
		inter := x509.NewCertPool()
		for _, ic := range cs.PeerCertificates[1:] {
			inter.AddCert(ic)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{
			Roots: roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		})
		return err
	}
}
