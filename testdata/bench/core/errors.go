package core

import "fmt"

// OpError records the operation during which an error happened.
type OpError struct {
	Op  string
	Err error
}

func (e *OpError) Error() string { return e.Op + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *OpError) Unwrap() error { return e.Err }

// Wrap annotates err with the operation op. It returns nil when err is nil.
func Wrap(err error, op string) error {
	if err == nil {
		return nil
	}
	return &OpError{Op: op, Err: err}
}

// Wrapf is Wrap with a formatted operation.
func Wrapf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &OpError{Op: fmt.Sprintf(format, args...), Err: err}
}
