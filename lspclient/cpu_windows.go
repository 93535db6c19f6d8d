package lspclient

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// cpuTicks returns the CPU time, in 100 ns units, used so far by every
// process of gopls's job: gopls and the go commands it runs. Only its
// changes mean anything (see stall.go).
func (t *procTree) cpuTicks() (uint64, bool) {
	if t == nil {
		return 0, false
	}
	var info jobAccounting
	err := windows.QueryInformationJobObject(t.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	if err != nil {
		return 0, false
	}
	return uint64(info.TotalUserTime + info.TotalKernelTime), true
}
