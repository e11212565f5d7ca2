package crates

import (
	"strconv"
	"strings"
)

// RegistryDir is where librust-*-dev packages install crate sources.
const RegistryDir = "/usr/share/cargo/registry"

// SourceName is the name the cargo configuration gives the directory source, the one
// Debian's own builds use.
const SourceName = "debian-packages"

// CargoConfig is the text of a cargo config.toml that replaces crates-io with the directory
// source at dir and turns the network off ([source.crates-io] replace-with, [net] offline = true).
// It is what Debian's package builds configure: cargo then reads every crate from the
// directory, where each librust-*-dev package put a crate's source with the
// .cargo-checksum.json a directory source needs, and never asks the network.
func CargoConfig(dir string) string {
	var b strings.Builder
	b.WriteString("# Crates come from the distribution's librust-*-dev packages, not from a registry.\n")
	b.WriteString("[source.crates-io]\n")
	b.WriteString("replace-with = " + tomlString(SourceName) + "\n\n")
	b.WriteString("[source." + SourceName + "]\n")
	b.WriteString("directory = " + tomlString(dir) + "\n\n")
	b.WriteString("[net]\n")
	b.WriteString("offline = true\n")
	return b.String()
}

// tomlString quotes s as a TOML basic string. TOML's escapes are a subset of Go's
// except for \x and \a and \v, which strconv.Quote writes for control bytes; those
// are written as \u escapes instead.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\u00`)
			h := strconv.FormatInt(int64(r), 16)
			if len(h) < 2 {
				h = "0" + h
			}
			b.WriteString(h)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
