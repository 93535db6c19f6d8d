//go:build unix

package edit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// The one decision on what is this user's own, for every file and
// directory goplsmcp keeps state in: the runtime directory of the shared
// daemons and its files (cmd/goplsmcp, through bridge.PrivateDir and
// bridge.PrivateFile) and the journals of applies. What is in them is
// acted on (a socket's answers, a journal's bytes written back into the
// workspace), so what another user could have planted is refused.

// PrivateFile returns an error unless fi, from Lstat or a Stat of an
// open file, is a file this user could have made: owned by the user, of
// the type wanted (0 for a regular file; a link is never one), and, if
// regular, with no other name, for a hard link planted there would make
// a write to it a write to someone's file.
func PrivateFile(fi fs.FileInfo, typ fs.FileMode) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return errors.New("cannot be checked")
	case fi.Mode().Type() != typ:
		return fmt.Errorf("is not a %s (mode %v)", kindName(typ), fi.Mode())
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("belongs to uid %d", st.Uid)
	case typ == 0 && st.Nlink != 1:
		return fmt.Errorf("has %d names", st.Nlink)
	}
	return nil
}

func kindName(typ fs.FileMode) string {
	switch typ {
	case fs.ModeSocket:
		return "socket"
	case fs.ModeDir:
		return "directory"
	}
	return "regular file"
}

// PrivateDir returns an error unless dir is a directory of this user's
// that no one else may write: a directory, not a link, owned by the
// user, with no write permission for its group or others. One that
// others could write is refused, not repaired: whatever they planted in
// it would survive a chmod. One that others may only read or search is
// made 0700, since nothing in it can be theirs.
func PrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if err := PrivateFile(fi, fs.ModeDir); err != nil {
		return fmt.Errorf("%s %v", dir, err)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by others (mode %v), so its files may not be this user's", dir, fi.Mode().Perm())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("%s may be opened by others: %w", dir, err)
		}
	}
	return nil
}

// openNoFollow opens path to read and write, never through a symbolic
// link, and without waiting on a FIFO planted there.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link", path)
	}
	if err == nil {
		f.Fd() // back to blocking mode
	}
	return f, err
}
