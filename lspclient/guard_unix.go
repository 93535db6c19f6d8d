//go:build unix

package lspclient

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// The guard ends the process groups of goplsmcp's children when goplsmcp
// ends, however it ends: a kill -9 runs no code of ours, and a parent-death
// signal would reach gopls (when the thread that started it ends, not
// goplsmcp) but not the go commands gopls started, which live on in its
// process group.
//
// It is a shell, in a process group of its own so that a terminal's
// signals miss it, reading a pipe whose only writer is goplsmcp: "+G"
// adds process group G, "-G" removes it. The kernel closes the pipe when
// goplsmcp ends; the shell then reads end of file and kills the groups
// still listed. Lines shorter than PIPE_BUF are written whole, so children
// may write to the pipe too (see GuardCommand).
const guardScript = `trap '' INT TERM HUP QUIT PIPE
g=" "
while read -r op id; do
	case $op in
	+) g="$g$id " ;;
	-) case $g in *" $id "*) g="${g%%" $id "*} ${g#*" $id "}" ;; esac ;;
	esac
done
for id in $g; do kill -s KILL -- "-$id" 2>/dev/null; done
`

var guard struct {
	once sync.Once
	w    *os.File // nil when no guard could be started
	mu   sync.Mutex
}

// startGuard starts the guard once per process.
func startGuard() *os.File {
	guard.once.Do(func() {
		r, w, err := os.Pipe()
		if err != nil {
			return
		}
		cmd := exec.Command("/bin/sh", "-c", guardScript)
		cmd.Stdin = r
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		err = cmd.Start()
		r.Close()
		if err != nil {
			w.Close()
			return
		}
		// Reaped if it ends while goplsmcp runs (it should not).
		go func() { _ = cmd.Wait() }()
		guard.w = w
	})
	return guard.w
}

func guardWrite(line string) {
	w := startGuard()
	if w == nil {
		return
	}
	guard.mu.Lock()
	defer guard.mu.Unlock()
	_, _ = w.WriteString(line)
}

// guardGroup asks the guard to kill process group pgid if goplsmcp ends.
func guardGroup(pgid int) { guardWrite(fmt.Sprintf("+ %d\n", pgid)) }

// unguardGroup tells the guard that process group pgid has been ended.
func unguardGroup(pgid int) { guardWrite(fmt.Sprintf("- %d\n", pgid)) }

// GuardCommand prepares cmd, not yet started, so that it and every process
// it starts end with it when it is cancelled, and with goplsmcp however
// goplsmcp ends: it runs in a process group of its own, which the guard
// learns of (a shell in between names the group, then becomes the
// command), and cancelling it kills the group.
func GuardCommand(cmd *exec.Cmd) {
	if w := startGuard(); w != nil {
		args := append([]string{"/bin/sh", "-c", `echo "+ $$" >&3; exec 3>&-; exec "$0" "$@"`, cmd.Path}, cmd.Args[1:]...)
		cmd.Path, cmd.Args = "/bin/sh", args
		cmd.ExtraFiles = append([]*os.File{w}, cmd.ExtraFiles...)
		// The guard's list keeps the group until goplsmcp ends; before it
		// kills, the group's leader is gone, and a new group with that
		// number is improbable within one run.
	}
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
