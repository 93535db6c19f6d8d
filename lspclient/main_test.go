package lspclient

import (
	"os"
	"testing"

	"github.com/goplsmcp/goplsmcp/internal/fixtureguard"
)

// TestMain fails the run if any test changed the fixtures in testdata/.
func TestMain(m *testing.M) {
	os.Exit(fixtureguard.Run(m, "../testdata"))
}
