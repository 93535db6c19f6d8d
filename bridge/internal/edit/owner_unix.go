//go:build unix

package edit

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// owner is a file's user and group.
type owner struct{ uid, gid int }

// ownerOf returns fi's owner and its number of hard links.
func ownerOf(fi fs.FileInfo) (*owner, uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, 1
	}
	return &owner{uid: int(st.Uid), gid: int(st.Gid)}, uint64(st.Nlink)
}

// keep gives f the owner, when it differs from f's.
func (o *owner) keep(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if mine, _ := ownerOf(fi); mine != nil && *mine == *o {
		return nil
	}
	if err := f.Chown(o.uid, o.gid); err != nil {
		return fmt.Errorf("%w: %v", errOwner, err)
	}
	return nil
}
