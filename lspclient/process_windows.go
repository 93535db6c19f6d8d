package lspclient

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysProcAttr starts gopls without a console window of its own. Its tree is
// held by a job object (see startTree), not by a process group.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW}
}

// A procTree is gopls and every process it starts: a job object that kills
// them all when it is closed. goplsmcp holds the only handle, so the
// system closes it, and ends the tree, however goplsmcp ends — even
// killed, when no code of ours runs.
type procTree struct {
	job windows.Handle
}

// startTree puts the process pid, just started, in a new job object. A
// process gopls starts joins its job. gopls starts nothing before it is
// initialized, so nothing escapes between its start and this.
func startTree(pid int) (*procTree, error) {
	job, err := killOnCloseJob()
	if err != nil {
		return nil, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("opening gopls's process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("assigning gopls to a job object: %w", err)
	}
	return &procTree{job: job}, nil
}

// signal ends gopls's tree. Windows has no SIGTERM for a console program:
// closing gopls's input (done first by stop) is the polite request, and
// any signal here ends the whole job.
func (p *process) signal(syscall.Signal) {
	if p.tree == nil {
		_ = p.cmd.Process.Kill()
		return
	}
	_ = windows.TerminateJobObject(p.tree.job, 1)
}

// release closes the job's handle once the tree has ended.
func (t *procTree) release() {
	if t != nil {
		windows.CloseHandle(t.job)
	}
}

// killOnCloseJob makes a job object that kills every process in it when
// its last handle closes.
func killOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("setting up a job object: %w", err)
	}
	return job, nil
}

// JoinKillOnCloseJob puts the current process in a new job object that
// kills every process in it when its last handle closes, and keeps that
// handle open for the life of the process: the processes it starts (gopls,
// gopls vulncheck, and theirs) join the job and end when it ends, even
// killed. It reports whether the process joined (before Windows 8, one
// already in a job may join no other).
func JoinKillOnCloseJob() bool {
	job, err := killOnCloseJob()
	if err != nil {
		return false
	}
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		windows.CloseHandle(job)
		return false
	}
	return true
}
