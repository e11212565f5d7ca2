module example.com/tool

go 1.22

require (
	github.com/spf13/cobra v1.8.0
	golang.org/x/sys v0.20.0 // indirect
)

require github.com/mattn/go-isatty v0.0.20
