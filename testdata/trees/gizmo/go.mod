module github.com/acme/gizmo/v2

go 1.25.0

toolchain go1.25.1

require github.com/spf13/pflag v1.0.6

require golang.org/x/sys v0.30.0 // indirect
