package producer

import "errors"

// ErrInvalidConfig marks a request that no producer could accept, such as
// idempotence with acks=1. Its message is a sentence a student can act on.
var ErrInvalidConfig = errors.New("invalid producer settings")

// invalid wraps msg so that errors.Is(err, ErrInvalidConfig) holds while
// Error() is just the sentence.
func invalid(msg string) error { return &configError{msg: msg} }

type configError struct{ msg string }

func (e *configError) Error() string        { return e.msg }
func (e *configError) Is(target error) bool { return target == ErrInvalidConfig }
