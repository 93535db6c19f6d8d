package lspclient

import (
	"os"
	"strconv"
	"strings"
)

// residentBytes returns the resident memory of process pid, from
// /proc/PID/statm (its second field, in pages): one small read, cheap
// enough to make at every renewal.
func residentBytes(pid int) (int64, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}
