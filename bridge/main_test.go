package bridge_test

import (
	"flag"
	"os"
	"testing"

	"github.com/goplsmcp/goplsmcp/internal/fixtureguard"
)

// TestMain fails the run if any test changed the fixtures in testdata/;
// under -update the golden archives are rewritten on purpose and left out.
func TestMain(m *testing.M) {
	flag.Parse()
	var except []string
	if *update {
		except = append(except, "golden")
	}
	os.Exit(fixtureguard.Run(m, "../testdata", except...))
}
