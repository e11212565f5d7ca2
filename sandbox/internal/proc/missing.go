package proc

import "fmt"

// MissingToolError says which host tool is missing and which apt package provides it.
type MissingToolError struct {
	// Tool is the program (or file) that is missing.
	Tool string
	// Package is the apt package that provides it.
	Package string
	// Purpose says what the sandbox needs it for.
	Purpose string
}

func (e *MissingToolError) Error() string {
	return fmt.Sprintf("%s is missing (%s); install it with: apt-get install -y %s", e.Tool, e.Purpose, e.Package)
}
