package bridge

import (
	"io/fs"
	"log/slog"

	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
)

// JournalDir is the directory where applies to files under root keep
// their journals (see edit.JournalDir and docs/safety.md).
func JournalDir(root string) (string, error) { return edit.JournalDir(root) }

// RecoverWrites resolves the journals in dir left by a goplsmcp that
// died during an apply to files under root: each such apply is rolled
// back, every file of it ending as it was (a file changed since is left
// and named in the log), and its temporary files removed. It runs when
// goplsmcp starts on a root, before gopls reads the files. A journal of
// a goplsmcp still running is left to it.
func RecoverWrites(dir, root string, log *slog.Logger) error {
	rec, err := edit.Recover(dir, root, log)
	if rec.Journals > 0 {
		log.Warn("rolled back an apply that a goplsmcp which stopped during it left half done",
			"applies", rec.Journals, "files_put_back", len(rec.PutBack), "temporary_files_removed", rec.Temps, "files_left", len(rec.Left))
	}
	return err
}

// PrivateFile returns an error unless fi (from Lstat, or Stat of an open
// file) is a file of type typ (0: regular) this user could have made:
// the one decision on what goplsmcp trusts as the user's own state (see
// edit.PrivateFile).
func PrivateFile(fi fs.FileInfo, typ fs.FileMode) error { return edit.PrivateFile(fi, typ) }

// PrivateDir returns an error unless dir is a directory of this user's
// that no one else may write (see edit.PrivateDir).
func PrivateDir(dir string) error { return edit.PrivateDir(dir) }
