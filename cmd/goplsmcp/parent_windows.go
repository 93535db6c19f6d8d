package main

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// dieWithParent puts goplsmcp in a job object that kills every process in
// it when its last handle closes. goplsmcp holds the only handle, and the
// processes it starts (gopls, gopls vulncheck, and theirs) join the job, so
// they all end when goplsmcp ends, even killed. Windows has no
// parent-death signal: the end of stdin ends the server when its client
// goes.
func dieWithParent() {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return
	}
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		// Already in a job that allows no other (before Windows 8).
		windows.CloseHandle(job)
	}
	// The handle stays open for the life of the process, on purpose.
}
