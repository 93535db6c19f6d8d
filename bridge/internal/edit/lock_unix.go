//go:build unix

package edit

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockJournal takes the journal's lock, waiting for it: a recovery that
// took it first lets go once it has seen the journal is not a dead one's.
func lockJournal(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX) }

// tryLockJournal takes the journal's lock if no process holds it.
func tryLockJournal(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// syncDir makes the names just made in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
