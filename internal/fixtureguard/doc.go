// Package fixtureguard checks that a test binary leaves the fixture
// workspaces under testdata/ byte for byte as it found them. Tests copy
// fixtures to temporary directories before using them; a test, or a tool,
// that wrote to a fixture in place would make every later run lie, so the
// packages whose tests use testdata/ run their tests through [Run].
//
// It is test support: no command or library of the module imports it.
package fixtureguard
