package bridge_test

import "errors"

// mkfifo has no equivalent on Windows.
func mkfifo(path string, mode uint32) error { return errors.ErrUnsupported }
