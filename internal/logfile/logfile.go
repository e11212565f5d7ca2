// Package logfile opens the log files Atesor appends to (the LLM audit log, the agent
// log and the build log) safely: they hold prompts, command output and paths, so they
// are private to the user, and a symbolic link planted in the output directory must not
// make Atesor write somewhere else.
package logfile

import (
	"fmt"
	"os"
	"syscall"
)

// Mode is the permission of every log file.
const Mode os.FileMode = 0o600

// OpenAppend opens path for appending, creating it with mode 0600. It never follows a
// symbolic link in the last path element (O_NOFOLLOW), also when the file already
// exists; it refuses anything but a regular file, and narrows the permissions of an
// existing file to 0600.
func OpenAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, Mode)
	if err != nil {
		return nil, fmt.Errorf("open log %s (a symbolic link is refused; remove it): %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("inspect log %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("log %s is not a regular file; remove it", path)
	}
	if fi.Mode().Perm() != Mode {
		if err := f.Chmod(Mode); err != nil {
			f.Close()
			return nil, fmt.Errorf("make log %s private: %w", path, err)
		}
	}
	return f, nil
}
