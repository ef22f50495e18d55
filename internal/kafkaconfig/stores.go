package kafkaconfig

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// PKCS#12 stores are read with software.sslmate.com/src/go-pkcs12, the one
// dependency this package adds: keytool (JDK 8u301, 11.0.12 and later) and
// OpenSSL 3 write PKCS#12 with PBES2/AES-256 and an HMAC-SHA-256 MAC, and
// truststores as certificate bags with Java's trust attribute, none of which
// the frozen golang.org/x/crypto/pkcs12 reads.

// storeFormat is what a store file holds, by its first bytes.
type storeFormat int

const (
	formatPEM storeFormat = iota
	formatPKCS12
	formatJKS
	formatJCEKS
)

// detectFormat looks at a store's bytes: Java keystores start with the
// magic 0xFEEDFEED (JKS) or 0xCECECECE (JCEKS), PEM is text with
// "-----BEGIN ", anything else is taken for PKCS#12 (DER).
func detectFormat(data []byte) storeFormat {
	switch {
	case bytes.HasPrefix(data, []byte{0xFE, 0xED, 0xFE, 0xED}):
		return formatJKS
	case bytes.HasPrefix(data, []byte{0xCE, 0xCE, 0xCE, 0xCE}):
		return formatJCEKS
	case bytes.Contains(data, []byte("-----BEGIN ")):
		return formatPEM
	}
	return formatPKCS12
}

// readNamed reads the file that key names.
func (l *loader) readNamed(key string) ([]byte, *problem.Error) {
	path := l.get(key)
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, l.errAt(key, keyStoreMissing, "path", path)
		}
		reason := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			reason = pe.Err.Error()
		}
		e := l.errAt(key, keyStoreUnreadable, "path", path, "reason", reason)
		e.Err = err
		return nil, e
	}
	return data, nil
}

// refuseJavaKeystore is the error for a JKS or JCEKS file.
func (l *loader) refuseJavaKeystore(key string, f storeFormat) *problem.Error {
	name := "JKS"
	if f == formatJCEKS {
		name = "JCEKS"
	}
	return l.errAt(key, keyJKS, "path", l.get(key), "format", name)
}

// pemCertificates parses every CERTIFICATE block of data.
func (l *loader) pemCertificates(key, source string, data []byte) ([]*x509.Certificate, *problem.Error) {
	var certs []*x509.Certificate
	for _, block := range pemBlocks(data) {
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, l.errAt(key, keyBadCertificate, "source", source, "reason", err.Error())
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, l.errAt(key, keyNoCertificate, "source", source)
	}
	return certs, nil
}

// trust returns the CA certificates the file trusts, or system=true for
// the system's roots (no truststore or ssl.ca.location=probe).
func (l *loader) trust() (roots []*x509.Certificate, system bool, err *problem.Error) {
	if e := l.conflicts("ssl.truststore.location", "ssl.truststore.certificates", "ssl.ca.location", "ssl.ca.pem"); e != nil {
		return nil, false, e
	}
	// ssl.truststore.type and ssl.keystore.type were checked by Load; the
	// content decides how a file is read (PEM, PKCS12, or refused JKS), as
	// Java's keystore.type.compat does for JKS and PKCS12
	passwordKey := "ssl.truststore.password"
	switch {
	case l.has("ssl.truststore.certificates"):
		if l.has(passwordKey) {
			return nil, false, l.errAt(passwordKey, keyPEMPassword)
		}
		certs, e := l.pemCertificates("ssl.truststore.certificates", "ssl.truststore.certificates", []byte(l.get("ssl.truststore.certificates")))
		return certs, false, e

	case l.has("ssl.truststore.location"):
		key := "ssl.truststore.location"
		data, e := l.readNamed(key)
		if e != nil {
			return nil, false, e
		}
		switch f := detectFormat(data); f {
		case formatJKS, formatJCEKS:
			return nil, false, l.refuseJavaKeystore(key, f)
		case formatPEM:
			if l.has(passwordKey) {
				return nil, false, l.errAt(passwordKey, keyPEMPassword)
			}
			certs, e := l.pemCertificates(key, l.get(key), data)
			return certs, false, e
		}
		certs, e := l.pkcs12TrustStore(key, passwordKey, data)
		return certs, false, e

	case l.has("ssl.ca.location"):
		key := "ssl.ca.location"
		path := l.get(key)
		if path == "probe" {
			return nil, true, nil
		}
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			return l.caDirectory(key, path)
		}
		data, e := l.readNamed(key)
		if e != nil {
			return nil, false, e
		}
		certs, e := l.pemCertificates(key, path, data)
		return certs, false, e

	case l.has("ssl.ca.pem"):
		certs, e := l.pemCertificates("ssl.ca.pem", "ssl.ca.pem", []byte(l.get("ssl.ca.pem")))
		return certs, false, e
	}
	return nil, true, nil
}

// caDirectory reads the PEM certificates of every file in dir, as
// OpenSSL's CA directories (librdkafka's ssl.ca.location) hold them.
func (l *loader) caDirectory(key, dir string) ([]*x509.Certificate, bool, *problem.Error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, l.errAt(key, keyStoreUnreadable, "path", dir, "reason", err.Error())
	}
	var certs []*x509.Certificate
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || detectFormat(data) != formatPEM {
			continue
		}
		more, bad := l.pemCertificates(key, filepath.Join(dir, e.Name()), data)
		if bad != nil && bad.Message.Key != keyNoCertificate {
			return nil, false, bad
		}
		for _, c := range more {
			if !slices.ContainsFunc(certs, c.Equal) {
				certs = append(certs, c)
			}
		}
	}
	if len(certs) == 0 {
		return nil, false, l.errAt(key, keyNoCertificate, "source", dir)
	}
	return certs, false, nil
}

// pkcs12TrustStore reads a PKCS#12 truststore: Java's trusted-certificate
// entries (what keytool -importcert writes). A store whose certificates
// lack Java's trust attribute (openssl pkcs12 -nokeys writes those) is
// refused, as Java itself trusts none of them; so is any store
// DecodeTrustStore cannot read, with its reason.
func (l *loader) pkcs12TrustStore(key, passwordKey string, data []byte) ([]*x509.Certificate, *problem.Error) {
	certs, err := pkcs12.DecodeTrustStore(data, l.get(passwordKey))
	switch {
	case errors.Is(err, pkcs12.ErrIncorrectPassword):
		return nil, l.passwordError(key, passwordKey)
	case err != nil:
		// go-pkcs12 names no error for a certificate without Java's
		// trust mark (the usual case: openssl wrote the store), so the
		// sentence says what a usable truststore is, with the reason.
		return nil, l.errAt(key, keyUntrusted, "path", l.get(key), "reason", err.Error())
	case len(certs) == 0:
		return nil, l.errAt(key, keyNoCertificate, "source", l.get(key))
	}
	return certs, nil
}

// passwordError is a PKCS#12 store's refusal of its password: none given,
// or the wrong one.
func (l *loader) passwordError(key, passwordKey string) *problem.Error {
	if l.get(passwordKey) == "" {
		return l.errAt(key, keyPasswordNeeded, "path", l.get(key), "passwordKey", passwordKey)
	}
	return l.errAt(passwordKey, keyWrongPassword, "path", l.get(key))
}

// clientCertificate returns the certificate and key the client presents
// (mutual TLS), or nil when the file names none.
func (l *loader) clientCertificate() (*tls.Certificate, *problem.Error) {
	if e := l.conflicts("ssl.keystore.location", "ssl.keystore.certificate.chain", "ssl.certificate.location", "ssl.certificate.pem"); e != nil {
		return nil, e
	}
	if e := l.conflicts("ssl.keystore.location", "ssl.keystore.key", "ssl.key.location", "ssl.key.pem"); e != nil {
		return nil, e
	}
	keyPassword := "ssl.key.password"
	switch {
	case l.has("ssl.keystore.location"):
		key := "ssl.keystore.location"
		data, e := l.readNamed(key)
		if e != nil {
			return nil, e
		}
		switch f := detectFormat(data); f {
		case formatJKS, formatJCEKS:
			return nil, l.refuseJavaKeystore(key, f)
		case formatPEM:
			if l.has("ssl.keystore.password") {
				return nil, l.errAt("ssl.keystore.password", keyPEMPassword)
			}
			certs, e := l.pemCertificates(key, l.get(key), data)
			if e != nil {
				return nil, e
			}
			priv, e := l.privateKey(key, l.get(key), data, keyPassword)
			if e != nil {
				return nil, e
			}
			return l.pair(key, certs, priv)
		}
		return l.pkcs12KeyStore(key, "ssl.keystore.password", data)

	case l.has("ssl.keystore.certificate.chain") || l.has("ssl.keystore.key"):
		if !l.has("ssl.keystore.key") {
			return nil, l.errAt("ssl.keystore.certificate.chain", keyCertWithoutKey, "other", "ssl.keystore.key")
		}
		if !l.has("ssl.keystore.certificate.chain") {
			return nil, l.errAt("ssl.keystore.key", keyKeyWithoutCert, "other", "ssl.keystore.certificate.chain")
		}
		certs, e := l.pemCertificates("ssl.keystore.certificate.chain", "ssl.keystore.certificate.chain", []byte(l.get("ssl.keystore.certificate.chain")))
		if e != nil {
			return nil, e
		}
		priv, e := l.privateKey("ssl.keystore.key", "ssl.keystore.key", []byte(l.get("ssl.keystore.key")), keyPassword)
		if e != nil {
			return nil, e
		}
		return l.pair("ssl.keystore.certificate.chain", certs, priv)

	case l.has("ssl.certificate.location") || l.has("ssl.certificate.pem"):
		certKey := "ssl.certificate.pem"
		certData := []byte(l.get(certKey))
		source := certKey
		if l.has("ssl.certificate.location") {
			certKey = "ssl.certificate.location"
			source = l.get(certKey)
			var e *problem.Error
			if certData, e = l.readNamed(certKey); e != nil {
				return nil, e
			}
		}
		certs, e := l.pemCertificates(certKey, source, certData)
		if e != nil {
			return nil, e
		}
		var priv crypto.Signer
		switch {
		case l.has("ssl.key.location"):
			data, e := l.readNamed("ssl.key.location")
			if e != nil {
				return nil, e
			}
			priv, e = l.privateKey("ssl.key.location", l.get("ssl.key.location"), data, keyPassword)
			if e != nil {
				return nil, e
			}
		case l.has("ssl.key.pem"):
			priv, e = l.privateKey("ssl.key.pem", "ssl.key.pem", []byte(l.get("ssl.key.pem")), keyPassword)
			if e != nil {
				return nil, e
			}
		case bytes.Contains(certData, []byte("PRIVATE KEY-----")):
			priv, e = l.privateKey(certKey, source, certData, keyPassword)
			if e != nil {
				return nil, e
			}
		default:
			return nil, l.errAt(certKey, keyCertWithoutKey, "other", "ssl.key.location")
		}
		return l.pair(certKey, certs, priv)

	case l.has("ssl.key.location") || l.has("ssl.key.pem"):
		key := "ssl.key.location"
		if !l.has(key) {
			key = "ssl.key.pem"
		}
		return nil, l.errAt(key, keyKeyWithoutCert, "other", "ssl.certificate.location")
	}
	return nil, nil
}

// pkcs12KeyStore reads the key and certificate chain of a PKCS#12
// keystore. PKCS#12 keeps one password for the store and its key (keytool
// refuses different ones), so ssl.key.password is not consulted.
func (l *loader) pkcs12KeyStore(key, passwordKey string, data []byte) (*tls.Certificate, *problem.Error) {
	priv, leaf, chain, err := pkcs12.DecodeChain(data, l.get(passwordKey))
	if errors.Is(err, pkcs12.ErrIncorrectPassword) {
		return nil, l.passwordError(key, passwordKey)
	}
	if err != nil {
		return nil, l.errAt(key, keyStoreUnreadable, "path", l.get(key), "reason", "not a PKCS12 keystore with one key: "+err.Error())
	}
	signer, ok := priv.(crypto.Signer)
	if !ok {
		return nil, l.errAt(key, keyBadKey, "source", l.get(key), "reason", "unsupported key type")
	}
	return l.pair(key, append([]*x509.Certificate{leaf}, chain...), signer)
}

// privateKey reads the first private key in data; passwordKey names the
// setting that decrypts an encrypted one.
func (l *loader) privateKey(key, source string, data []byte, passwordKey string) (crypto.Signer, *problem.Error) {
	for _, block := range pemBlocks(data) {
		if !strings.HasSuffix(block.Type, "PRIVATE KEY") {
			continue
		}
		if block.Headers["Proc-Type"] != "" {
			return nil, l.errAt(key, keyLegacyKey, "source", source)
		}
		der := block.Bytes
		if block.Type == "ENCRYPTED PRIVATE KEY" {
			if !l.has(passwordKey) {
				return nil, l.errAt(key, keyKeyPasswordNeeded, "source", source, "passwordKey", passwordKey)
			}
			var err error
			der, err = decryptPKCS8(der, l.get(passwordKey))
			if errors.Is(err, errWrongPassword) {
				return nil, l.errAt(passwordKey, keyKeyWrongPassword, "source", source)
			}
			if err != nil {
				return nil, l.errAt(key, keyBadKey, "source", source, "reason", err.Error())
			}
			signer, perr := parseKey("PRIVATE KEY", der)
			if perr != nil {
				// a wrong password that happened to leave valid padding
				return nil, l.errAt(passwordKey, keyKeyWrongPassword, "source", source)
			}
			return signer, nil
		}
		signer, err := parseKey(block.Type, der)
		if err != nil {
			return nil, l.errAt(key, keyBadKey, "source", source, "reason", err.Error())
		}
		return signer, nil
	}
	return nil, l.errAt(key, keyNoKey, "source", source)
}

// parseKey parses a PKCS#8, PKCS#1 (RSA) or SEC 1 (EC) private key.
func parseKey(pemType string, der []byte) (crypto.Signer, error) {
	var key any
	var err error
	switch pemType {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(der)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(der)
	default:
		key, err = x509.ParsePKCS8PrivateKey(der)
	}
	if err != nil {
		return nil, errors.New("not a PKCS#8, PKCS#1 or SEC 1 private key")
	}
	switch k := key.(type) {
	case *rsa.PrivateKey, *ecdsa.PrivateKey, ed25519.PrivateKey:
		return k.(crypto.Signer), nil
	}
	return nil, errors.New("unsupported key type")
}

// pair checks that priv belongs to the first certificate and builds the
// client certificate.
func (l *loader) pair(key string, certs []*x509.Certificate, priv crypto.Signer) (*tls.Certificate, *problem.Error) {
	leaf := certs[0]
	pub, ok := priv.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(leaf.PublicKey) {
		return nil, l.errAt(key, keyKeyMismatch, "subject", leaf.Subject.String())
	}
	out := &tls.Certificate{PrivateKey: priv, Leaf: leaf}
	for _, c := range certs {
		out.Certificate = append(out.Certificate, c.Raw)
	}
	return out, nil
}

// pemBlocks returns the PEM blocks of data. Besides well-formed PEM it
// reads the one-line form a properties value takes when its lines were
// joined by backslash continuations ("-----BEGIN CERTIFICATE----- MIIB…
// -----END CERTIFICATE-----"), which Java's PEM stores accept too.
func pemBlocks(data []byte) []*pem.Block {
	var out []*pem.Block
	for rest := data; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		out = append(out, b)
	}
	if len(out) > 0 {
		return out
	}
	s := string(data)
	for {
		begin := strings.Index(s, "-----BEGIN ")
		if begin < 0 {
			return out
		}
		s = s[begin+len("-----BEGIN "):]
		typeEnd := strings.Index(s, "-----")
		if typeEnd < 0 {
			return out
		}
		typ := s[:typeEnd]
		s = s[typeEnd+len("-----"):]
		end := strings.Index(s, "-----END "+typ+"-----")
		if end < 0 {
			return out
		}
		body := strings.Join(strings.Fields(s[:end]), "")
		s = s[end:]
		der, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			continue
		}
		out = append(out, &pem.Block{Type: typ, Bytes: der})
	}
}
