package kafkaconfig

import (
	"strconv"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// refusal is Load's refusal msgKey: a problem.Invalid error whose
// catalogue sentence names the file ({file}, {where}) and, when it is about
// one setting, its line and key ({line}, {key}). Its arguments never hold a
// password, a private key, a JAAS line, the value of any other secret
// setting or the value of an unknown key; tests check that. cause is
// secret-free (an *fs.PathError, say) or nil.
func refusal(msgKey string, args map[string]string, cause error) *problem.Error {
	return &problem.Error{Kind: problem.Invalid, Message: catalog.Message{Key: msgKey, Args: args}, Err: cause}
}

// The catalogue keys of Load's refusals (internal/catalog).
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
