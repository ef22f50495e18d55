package kafkaconfig

import (
	"errors"
	"maps"
	"strconv"
	"strings"
)

// ErrInvalid marks every error of Load: the file cannot be read, a line is
// not a setting, a key is unknown or unsupported, a value is wrong, or a
// store or key named by the file cannot be opened. errors.Is(err,
// ErrInvalid) holds for all of them; errors.As(err, new(*Error)) gives the
// file, line and key.
var ErrInvalid = errors.New("invalid Kafka client properties")

// Error is a refusal of a properties file. Its Error() is one English
// sentence that names the file, the line and the key when there is one,
// and says what to do. It never holds a password, a private key, a JAAS
// line, the value of any other secret setting or the value of an unknown
// key; tests check that.
type Error struct {
	// File is the properties file as given to Load.
	File string
	// Line is the 1-based line of the setting, or 0 when the error is not
	// about one line.
	Line int
	// Key is the setting the error is about, or "" when it is about the
	// whole file.
	Key string

	msgKey string
	args   map[string]string
	err    error // the cause, secret-free; may be nil
}

func (e *Error) Error() string { return fill(sentence(e.msgKey), e.args) }

// Is reports whether target is ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns the cause (an *fs.PathError, say), or nil.
func (e *Error) Unwrap() error { return e.err }

// MessageKey names the catalogue sentence (see internal/uikey): one of
// the keys of Messages, with its placeholders' values.
func (e *Error) MessageKey() (string, map[string]string) { return e.msgKey, maps.Clone(e.args) }

// Messages returns the English sentence of every catalogue key the errors
// of this package use, with its {placeholders}; every error's Error() is
// its sentence with the placeholders filled in. {where} is the file, the
// line and the key ("reader.properties:3: sasl.mechanism"), which need no
// translation.
func Messages() map[string]string {
	out := map[string]string{}
	for _, k := range messageKeys() {
		out[k] = sentence(k)
	}
	return out
}

// The catalogue keys (web/static/i18n, "error." keys).
const (
	keyFileMissing        = "error.commandConfig.fileMissing"
	keyFileUnreadable     = "error.commandConfig.fileUnreadable"
	keyMalformedLine      = "error.commandConfig.malformedLine"
	keyBadEscape          = "error.commandConfig.badEscape"
	keyValueWithoutKey    = "error.commandConfig.valueWithoutKey"
	keyUnknownKeys        = "error.commandConfig.unknownKeys"
	keyUnsupportedKeys    = "error.commandConfig.unsupportedKeys"
	keyUnknownUnsupported = "error.commandConfig.unknownAndUnsupportedKeys"
	keyBadValue           = "error.commandConfig.badValue"
	keyBadServer          = "error.commandConfig.badServer"
	keyMechanism          = "error.commandConfig.unsupportedMechanism"
	keyMechanismMissing   = "error.commandConfig.mechanismMissing"
	keyConflict           = "error.commandConfig.conflict"
	keyNotUsed            = "error.commandConfig.notUsedByProtocol"
	keyUsernameMissing    = "error.commandConfig.usernameMissing"
	keyPasswordMissing    = "error.commandConfig.passwordMissing"
	keyJAASSyntax         = "error.commandConfig.jaasSyntax"
	keyJAASModule         = "error.commandConfig.jaasModule"
	keyJAASOption         = "error.commandConfig.jaasOption"
	keyStoreMissing       = "error.commandConfig.storeMissing"
	keyStoreUnreadable    = "error.commandConfig.storeUnreadable"
	keyStoreType          = "error.commandConfig.storeType"
	keyJKS                = "error.commandConfig.jks"
	keyWrongPassword      = "error.commandConfig.wrongPassword"
	keyPasswordNeeded     = "error.commandConfig.storePasswordNeeded"
	keyPEMPassword        = "error.commandConfig.pemStorePassword"
	keyNoCertificate      = "error.commandConfig.noCertificate"
	keyBadCertificate     = "error.commandConfig.badCertificate"
	keyNoKey              = "error.commandConfig.noPrivateKey"
	keyBadKey             = "error.commandConfig.badPrivateKey"
	keyKeyPasswordNeeded  = "error.commandConfig.keyPasswordNeeded"
	keyKeyWrongPassword   = "error.commandConfig.keyWrongPassword"
	keyLegacyKey          = "error.commandConfig.legacyEncryptedKey"
	keyKeyMismatch        = "error.commandConfig.keyMismatch"
	keyCertWithoutKey     = "error.commandConfig.certificateWithoutKey"
	keyKeyWithoutCert     = "error.commandConfig.keyWithoutCertificate"
	keyUntrusted          = "error.commandConfig.untrustedPKCS12"
	keyNoStore            = "error.commandConfig.settingWithoutStore"
)

func messageKeys() []string {
	return []string{
		keyFileMissing, keyFileUnreadable, keyMalformedLine, keyBadEscape, keyValueWithoutKey, keyUnknownKeys, keyUnsupportedKeys,
		keyUnknownUnsupported, keyBadValue, keyBadServer, keyMechanism, keyMechanismMissing,
		keyConflict, keyNotUsed, keyUsernameMissing, keyPasswordMissing, keyJAASSyntax, keyJAASModule,
		keyJAASOption, keyStoreMissing, keyStoreUnreadable, keyStoreType, keyJKS, keyWrongPassword,
		keyPasswordNeeded, keyPEMPassword, keyNoCertificate, keyBadCertificate, keyNoKey, keyBadKey,
		keyKeyPasswordNeeded, keyKeyWrongPassword, keyLegacyKey, keyKeyMismatch, keyCertWithoutKey,
		keyKeyWithoutCert, keyUntrusted, keyNoStore,
	}
}

// sentence is the English catalogue sentence of key.
func sentence(key string) string {
	switch key {
	case keyFileMissing:
		return "{file}: no such file; --command-config takes a Kafka client properties file, as kafka-*.sh --command-config does"
	case keyFileUnreadable:
		return "{file}: cannot read the file: {reason}"
	case keyMalformedLine:
		return "{where}: not a key=value setting"
	case keyBadEscape:
		return "{where}: malformed \\uxxxx escape"
	case keyValueWithoutKey:
		return "{where}: a value without a key; write key=value"
	case keyUnknownKeys:
		return "{file}: settings Offset Lab does not know: {keys}; fix their spelling or remove them"
	case keyUnsupportedKeys:
		return "{file}: settings Offset Lab cannot honour: {keys}; remove them to connect with TLS, PLAIN or SCRAM only"
	case keyUnknownUnsupported:
		return "{file}: settings Offset Lab does not know: {unknown}; settings Offset Lab cannot honour: {unsupported}; fix or remove them"
	case keyBadValue:
		return "{where}: {value} is not a valid value; use {allowed}"
	case keyBadServer:
		return "{where}: {server} is not host:port"
	case keyMechanism:
		return "{where}: SASL mechanism {mechanism} is not supported; use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"
	case keyMechanismMissing:
		return "{where}: {protocol} needs sasl.mechanism; Kafka's default, GSSAPI (Kerberos), is not supported, so set sasl.mechanism=PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"
	case keyConflict:
		return "{where}: conflicts with {other}; keep one of the two"
	case keyNotUsed:
		return "{where}: security.protocol is {protocol}, which does not use {layer}; use {suggested} or remove the setting"
	case keyUsernameMissing:
		return "{where}: SASL {mechanism} needs a user name: give username=\"NAME\" in sasl.jaas.config (Java) or set sasl.username (librdkafka)"
	case keyPasswordMissing:
		return "{where}: SASL {mechanism} needs a password: give password=\"PASSWORD\" in sasl.jaas.config (Java) or set sasl.password (librdkafka)"
	case keyJAASSyntax:
		return "{where}: not a JAAS login line ({reason}); write it as: org.apache.kafka.common.security.scram.ScramLoginModule required username=\"NAME\" password=\"PASSWORD\";"
	case keyJAASModule:
		return "{where}: login module {module} is not supported; use org.apache.kafka.common.security.plain.PlainLoginModule or org.apache.kafka.common.security.scram.ScramLoginModule"
	case keyJAASOption:
		return "{where}: login module option {option} is not supported; use username, password and, for SCRAM, tokenauth"
	case keyStoreMissing:
		return "{where}: {path} does not exist"
	case keyStoreUnreadable:
		return "{where}: cannot read {path}: {reason}"
	case keyStoreType:
		return "{where}: store type {value} is not supported; use PEM or PKCS12"
	case keyJKS:
		return "{where}: {path} is a {format} keystore, which Offset Lab cannot read; convert it to PKCS12 with: keytool -importkeystore -srckeystore {path} -destkeystore {path}.p12 -deststoretype PKCS12 — then point {key} at {path}.p12 and set its type to PKCS12"
	case keyWrongPassword:
		return "{where}: the password does not open {path}"
	case keyPasswordNeeded:
		return "{where}: {path} is protected by a password; set {passwordKey}"
	case keyPEMPassword:
		return "{where}: a PEM store has no store password (Kafka refuses one too); remove the setting (an encrypted PEM key takes ssl.key.password)"
	case keyNoCertificate:
		return "{where}: {source} holds no certificate"
	case keyBadCertificate:
		return "{where}: {source} holds a certificate that cannot be read: {reason}"
	case keyNoKey:
		return "{where}: {source} holds no private key"
	case keyBadKey:
		return "{where}: cannot read the private key in {source}: {reason}"
	case keyKeyPasswordNeeded:
		return "{where}: the private key in {source} is encrypted; set {passwordKey}"
	case keyKeyWrongPassword:
		return "{where}: the password does not decrypt the private key in {source}"
	case keyLegacyKey:
		return "{where}: the private key in {source} is encrypted in OpenSSL's legacy PEM format; convert it to PKCS#8 with: openssl pkcs8 -topk8 -v2 aes-256-cbc -in OLD.key -out NEW.key"
	case keyKeyMismatch:
		return "{where}: the private key does not belong to the certificate of {subject}"
	case keyCertWithoutKey:
		return "{where}: a client certificate needs its private key; set {other}"
	case keyNoStore:
		return "{where}: goes with no store; set {storeKey}, or remove the setting"
	case keyUntrusted:
		return "{where}: {path} holds certificates that are not marked as trusted (openssl pkcs12 writes them so, and Java trusts none of them either); point ssl.truststore.location at the CA's PEM file with ssl.truststore.type=PEM, or build the truststore with keytool -importcert"
	case keyKeyWithoutCert:
		return "{where}: a private key needs its client certificate; set {other}"
	}
	return key
}

// fill replaces each {name} in s by args[name].
func fill(s string, args map[string]string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(s[open:], '}')
		if end < 0 {
			break
		}
		name := s[open+1 : open+end]
		v, ok := args[name]
		if !ok {
			v = "{" + name + "}"
		}
		b.WriteString(s[:open])
		b.WriteString(v)
		s = s[open+end+1:]
	}
	b.WriteString(s)
	return b.String()
}

// where is the {where} of a setting: "file:line: key", "file: key" or
// "file".
func where(file string, line int, key string) string {
	s := file
	if line > 0 {
		s += ":" + strconv.Itoa(line)
	}
	if key != "" {
		s += ": " + key
	}
	return s
}
