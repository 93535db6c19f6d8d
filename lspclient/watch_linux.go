package lspclient

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// inotifyMask is what a watched directory reports: entries created,
// written, deleted and renamed, and the directory itself going away.
const inotifyMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

// inotify watches directories with one non-blocking inotify descriptor.
// The kernel queues an event as part of the write that causes it, so
// reading the queue after a write has returned always sees the write.
type inotify struct {
	fd    int
	byWD  map[int32]string
	byDir map[string]int32
	buf   []byte
}

func newFSWatch() (fsWatch, error) {
	if testNoInotify {
		return nil, errors.New("inotify disabled by a test")
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	return &inotify{fd: fd, byWD: map[int32]string{}, byDir: map[string]int32{}, buf: make([]byte, 64<<10)}, nil
}

func (n *inotify) add(dir string) error {
	wd, err := unix.InotifyAddWatch(n.fd, dir, inotifyMask)
	if errors.Is(err, unix.ENOSPC) {
		// The user's inotify watches (fs.inotify.max_user_watches) are
		// all taken.
		return fmt.Errorf("inotify watch %s: %w (%w)", dir, errWatchLimit, err)
	}
	if err != nil {
		return fmt.Errorf("inotify watch %s: %w", dir, err)
	}
	n.byWD[int32(wd)] = dir
	n.byDir[dir] = int32(wd)
	return nil
}

func (n *inotify) watching(dir string) bool { _, ok := n.byDir[dir]; return ok }

func (n *inotify) exact(dir string) bool {
	wd, ok := n.byDir[dir]
	return ok && n.byWD[wd] == dir
}

// changeTime is the time a file's content or attributes last changed,
// which no program can set back.
func changeTime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return time.Time{}
}

// singleLink reports whether fi is a file with one name: a change made
// through another hard link would show in that link's directory only.
func singleLink(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 1
}
func (n *inotify) count() int { return len(n.byDir) }

func (n *inotify) dirs() []string {
	out := make([]string, 0, len(n.byDir))
	for d := range n.byDir {
		out = append(out, d)
	}
	return out
}

func (n *inotify) forget(wd int32) {
	if dir, ok := n.byWD[wd]; ok {
		delete(n.byWD, wd)
		if n.byDir[dir] == wd {
			delete(n.byDir, dir)
		}
	}
}

func (n *inotify) drain() (events []fsEvent, overflow bool) {
	for {
		size, err := unix.Read(n.fd, n.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || size <= 0 {
			// EAGAIN: the queue is empty.
			return events, overflow
		}
		for off := 0; off+unix.SizeofInotifyEvent <= size; {
			wd := int32(binary.NativeEndian.Uint32(n.buf[off:]))
			mask := binary.NativeEndian.Uint32(n.buf[off+4:])
			nameLen := int(binary.NativeEndian.Uint32(n.buf[off+12:]))
			nameStart := off + unix.SizeofInotifyEvent
			name := strings.TrimRight(string(n.buf[nameStart:min(nameStart+nameLen, size)]), "\x00")
			off = nameStart + nameLen

			if mask&unix.IN_Q_OVERFLOW != 0 {
				overflow = true
				continue
			}
			dir, ok := n.byWD[wd]
			if !ok {
				continue
			}
			if mask&unix.IN_IGNORED != 0 {
				n.forget(wd)
				continue
			}
			if mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 {
				// The directory itself went away (or moved, to a place
				// unknown): gone from here.
				events = append(events, fsEvent{path: dir, kind: fileDeleted, dir: true})
				_, _ = unix.InotifyRmWatch(n.fd, uint32(wd))
				n.forget(wd)
				continue
			}
			if name == "" {
				continue
			}
			ev := fsEvent{path: filepath.Join(dir, name), dir: mask&unix.IN_ISDIR != 0}
			switch {
			case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
				ev.kind = fileCreated
			case mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
				ev.kind = fileDeleted
			default:
				ev.kind = fileChanged
			}
			events = append(events, ev)
		}
	}
}

func (n *inotify) close() error { return unix.Close(n.fd) }
