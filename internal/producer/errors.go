package producer

import "errors"

// ErrInvalidConfig marks a request that no producer could accept, such as
// idempotence with acks=1. Its message is a sentence a student can act on.
var ErrInvalidConfig = errors.New("invalid producer settings")

// invalid wraps msg so that errors.Is(err, ErrInvalidConfig) holds while
// Error() is just the sentence. key names the same sentence in the UI
// catalogue (web/static/i18n, "error." keys) and kv are its placeholders'
// names and values, in pairs.
func invalid(msg, key string, kv ...string) error {
	return &configError{msg: msg, key: key, args: pairs(kv)}
}

type configError struct {
	msg  string
	key  string
	args map[string]string
}

func (e *configError) Error() string        { return e.msg }
func (e *configError) Is(target error) bool { return target == ErrInvalidConfig }

// MessageKey names the catalogue sentence (see internal/uikey).
func (e *configError) MessageKey() (string, map[string]string) { return e.key, e.args }

// stateError is a session error of a kind (ErrNoSession, ErrSessionState,
// ErrFenced) whose Error() reads "<kind>: <msg>[: <err>]", as
// fmt.Errorf("%w: …") did, and that names its catalogue sentence.
type stateError struct {
	kind error
	msg  string
	err  error
	key  string
	args map[string]string
}

func stateErr(kind error, msg string, err error, key string, kv ...string) error {
	return &stateError{kind: kind, msg: msg, err: err, key: key, args: pairs(kv)}
}

func (e *stateError) Error() string {
	s := e.kind.Error() + ": " + e.msg
	if e.err != nil {
		s += ": " + e.err.Error()
	}
	return s
}
func (e *stateError) Is(target error) bool { return target == e.kind }
func (e *stateError) Unwrap() error        { return e.err }

// MessageKey names the catalogue sentence (see internal/uikey).
func (e *stateError) MessageKey() (string, map[string]string) { return e.key, e.args }

func pairs(kv []string) map[string]string {
	if len(kv) == 0 {
		return nil
	}
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}
