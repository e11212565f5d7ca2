// Package procowner records which process owns a directory, so that what a process
// leaves behind when it dies without cleaning up (killed with SIGKILL, which cannot be
// caught, or crashed) is found and removed by a later process, while the directories of
// live processes, this one's and other ones', are left alone.
//
// A process is identified by its PID, its start time (so that a reused PID is not taken
// for the owner) and its PID namespace (a process of another namespace cannot be
// checked, so its directories always count as owned by a live process).
package procowner
