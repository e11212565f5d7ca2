package riscvisa

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// SectionName is the ELF section that holds the RISC-V build attributes.
const SectionName = ".riscv.attributes"

// MaxSectionSize bounds the attribute section this package parses; a real one is well
// under a kilobyte.
const MaxSectionSize = 64 << 10

// The attribute tags of the RISC-V psABI that this package names.
const (
	tagFile            = 1
	tagStackAlign      = 4
	tagArch            = 5
	tagUnalignedAccess = 6
)

// Attributes is what a .riscv.attributes section says about a file.
type Attributes struct {
	// Arch is Tag_RISCV_arch: the architecture string the file was built for, for example
	// "rv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_zicsr2p0_zifencei2p0".
	Arch string
	// StackAlign is Tag_RISCV_stack_align in bytes (0 when absent).
	StackAlign uint64
	// UnalignedAccess is Tag_RISCV_unaligned_access: the code may access memory unaligned.
	UnalignedAccess bool
}

// ErrMalformed is wrapped by every error of [ParseAttributes].
var ErrMalformed = errors.New("malformed .riscv.attributes section")

// ParseAttributes parses the contents of a .riscv.attributes section (the ELF build
// attributes format: a version byte 'A', then vendor subsections of which only "riscv"
// is read, then tagged attributes). Unknown tags are skipped by the psABI's rule: odd
// tags carry a NUL-terminated string, even tags a ULEB128 number.
func ParseAttributes(data []byte) (Attributes, error) {
	var a Attributes
	if len(data) > MaxSectionSize {
		return a, fmt.Errorf("%w: %d bytes, above the %d-byte bound", ErrMalformed, len(data), MaxSectionSize)
	}
	if len(data) == 0 || data[0] != 'A' {
		return a, fmt.Errorf("%w: no format version 'A'", ErrMalformed)
	}
	rest := data[1:]
	for len(rest) > 0 {
		if len(rest) < 4 {
			return a, fmt.Errorf("%w: truncated subsection length", ErrMalformed)
		}
		n := binary.LittleEndian.Uint32(rest)
		if n < 4 || uint64(n) > uint64(len(rest)) {
			return a, fmt.Errorf("%w: subsection length %d outside the %d bytes left", ErrMalformed, n, len(rest))
		}
		sub := rest[4:n]
		rest = rest[n:]
		vendor, body, ok := cstring(sub)
		if !ok {
			return a, fmt.Errorf("%w: unterminated vendor name", ErrMalformed)
		}
		if vendor != "riscv" {
			continue
		}
		if err := parseVendor(body, &a); err != nil {
			return a, err
		}
	}
	return a, nil
}

// parseVendor reads the sub-subsections of the "riscv" vendor subsection; only the
// file-scope one (Tag_File) holds attributes a linked file keeps.
func parseVendor(body []byte, a *Attributes) error {
	for len(body) > 0 {
		tag, k := uleb(body)
		if k == 0 {
			return fmt.Errorf("%w: bad sub-subsection tag", ErrMalformed)
		}
		if len(body) < k+4 {
			return fmt.Errorf("%w: truncated sub-subsection", ErrMalformed)
		}
		n := binary.LittleEndian.Uint32(body[k:])
		if uint64(n) < uint64(k+4) || uint64(n) > uint64(len(body)) {
			return fmt.Errorf("%w: sub-subsection length %d outside the %d bytes left", ErrMalformed, n, len(body))
		}
		attrs := body[k+4 : n]
		body = body[n:]
		if tag != tagFile {
			continue
		}
		if err := parseAttrs(attrs, a); err != nil {
			return err
		}
	}
	return nil
}

func parseAttrs(b []byte, a *Attributes) error {
	for len(b) > 0 {
		tag, k := uleb(b)
		if k == 0 {
			return fmt.Errorf("%w: bad attribute tag", ErrMalformed)
		}
		b = b[k:]
		if tag%2 == 1 {
			s, rest, ok := cstring(b)
			if !ok {
				return fmt.Errorf("%w: unterminated string of tag %d", ErrMalformed, tag)
			}
			b = rest
			if tag == tagArch {
				a.Arch = s
			}
			continue
		}
		v, k := uleb(b)
		if k == 0 {
			return fmt.Errorf("%w: bad value of tag %d", ErrMalformed, tag)
		}
		b = b[k:]
		switch tag {
		case tagStackAlign:
			a.StackAlign = v
		case tagUnalignedAccess:
			a.UnalignedAccess = v != 0
		}
	}
	return nil
}

// cstring splits a NUL-terminated string off b.
func cstring(b []byte) (string, []byte, bool) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", nil, false
	}
	return string(b[:i]), b[i+1:], true
}

// uleb decodes an unsigned LEB128 number; k is the number of bytes read, 0 when b does
// not hold a complete number of at most 64 bits.
func uleb(b []byte) (v uint64, k int) {
	var shift uint
	for i, c := range b {
		if i >= 10 {
			return 0, 0
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, i + 1
		}
		shift += 7
	}
	return 0, 0
}
