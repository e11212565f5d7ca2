package verify

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// ErrMalformedELF is wrapped by the errors of [InspectELF] (and of the export check's symbol reader) for a file
// that starts like an ELF file but whose headers are inconsistent or claim more than the
// bounds below. Such a file is a problem on that artifact; it also wraps [ErrNotELF].
var ErrMalformedELF = errors.New("malformed ELF file")

// Bounds of what the ELF readers allocate from size fields of a file. debug/elf
// allocates a section's whole size when it reads it (and a compressed section's whole
// uncompressed size), and three to four times a symbol table's size for its symbols, so
// every size is checked against the file and against these caps before it is read.
const (
	// maxInterp: PT_INTERP names a path; Linux's PATH_MAX is 4096.
	maxInterp = 4096
	// maxSections: section headers; a large object built with -ffunction-sections has
	// some tens of thousands.
	maxSections = 1 << 20
	// maxSymtabBytes: a symbol table (.symtab, .dynsym) of 1.4 million symbols.
	maxSymtabBytes = 32 << 20
	// maxStrtabBytes: a string table (symbol names, section names).
	maxStrtabBytes = 64 << 20
	// maxDynamicBytes: the dynamic section, a few dozen 16-byte entries in practice.
	maxDynamicBytes = 4 << 20
	// maxVersionBytes: the GNU symbol-version sections.
	maxVersionBytes = 16 << 20
)

// malformedError is a malformed ELF file; it is both ErrMalformedELF and ErrNotELF.
type malformedError struct{ why string }

func (e *malformedError) Error() string { return ErrMalformedELF.Error() + " (" + e.why + ")" }

func (e *malformedError) Is(target error) bool {
	return target == ErrMalformedELF || target == ErrNotELF
}

// malformed returns an error wrapping ErrMalformedELF and ErrNotELF.
func malformed(format string, args ...any) error {
	return &malformedError{why: fmt.Sprintf(format, args...)}
}

// readerSize returns the size of r when it can tell, else math.MaxInt64 (the caps still
// apply).
func readerSize(r io.ReaderAt) int64 {
	switch v := r.(type) {
	case interface{ Size() int64 }:
		return v.Size()
	case *os.File:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return math.MaxInt64
}

// inFile reports whether [off, off+n) lies inside a file of size bytes.
func inFile(off, n uint64, size int64) bool {
	return off <= uint64(size) && n <= uint64(size)-off
}

// checkELFHeader checks, before debug/elf reads anything, that the program and section
// header tables lie inside the file and that the section-name table (which debug/elf
// reads whole while it opens the file) is bounded and not compressed.
func checkELFHeader(r io.ReaderAt, size int64) error {
	var h [64]byte
	n, err := r.ReadAt(h[:], 0)
	if n < 52 {
		return malformed("truncated header: %v", err)
	}
	var bo binary.ByteOrder
	switch elf.Data(h[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		bo = binary.LittleEndian
	case elf.ELFDATA2MSB:
		bo = binary.BigEndian
	default:
		return malformed("unknown byte order %d", h[elf.EI_DATA])
	}
	var phoff, shoff uint64
	var phentsize, phnum, shentsize, shnum, shstrndx uint64
	is64 := false
	switch elf.Class(h[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		if n < 64 {
			return malformed("truncated header: %v", err)
		}
		is64 = true
		phoff, shoff = bo.Uint64(h[0x20:]), bo.Uint64(h[0x28:])
		phentsize, phnum = uint64(bo.Uint16(h[0x36:])), uint64(bo.Uint16(h[0x38:]))
		shentsize, shnum, shstrndx = uint64(bo.Uint16(h[0x3a:])), uint64(bo.Uint16(h[0x3c:])), uint64(bo.Uint16(h[0x3e:]))
	case elf.ELFCLASS32:
		phoff, shoff = uint64(bo.Uint32(h[0x1c:])), uint64(bo.Uint32(h[0x20:]))
		phentsize, phnum = uint64(bo.Uint16(h[0x2a:])), uint64(bo.Uint16(h[0x2c:]))
		shentsize, shnum, shstrndx = uint64(bo.Uint16(h[0x2e:])), uint64(bo.Uint16(h[0x30:])), uint64(bo.Uint16(h[0x32:]))
	default:
		return malformed("unknown class %d", h[elf.EI_CLASS])
	}
	if phnum > 0 && !inFile(phoff, phnum*phentsize, size) {
		return malformed("program headers (%d of %d bytes at %d) lie beyond the file's %d bytes", phnum, phentsize, phoff, size)
	}
	if shoff == 0 {
		return nil
	}
	wantEnt := uint64(40)
	if is64 {
		wantEnt = 64
	}
	if shentsize < wantEnt {
		return malformed("section header entry size %d", shentsize)
	}
	readShdr := func(i uint64) (typ uint32, flags, off, sz uint64, link uint32, err error) {
		var b [64]byte
		if i > (math.MaxInt64-shoff)/shentsize {
			return 0, 0, 0, 0, 0, malformed("section %d lies beyond the file", i)
		}
		at := shoff + i*shentsize
		if !inFile(at, wantEnt, size) {
			return 0, 0, 0, 0, 0, malformed("section header %d lies beyond the file's %d bytes", i, size)
		}
		if k, rerr := r.ReadAt(b[:wantEnt], int64(at)); uint64(k) < wantEnt {
			return 0, 0, 0, 0, 0, malformed("section header %d: %v", i, rerr)
		}
		if is64 {
			return bo.Uint32(b[4:]), bo.Uint64(b[8:]), bo.Uint64(b[24:]), bo.Uint64(b[32:]), bo.Uint32(b[40:]), nil
		}
		return bo.Uint32(b[4:]), uint64(bo.Uint32(b[8:])), uint64(bo.Uint32(b[16:])), uint64(bo.Uint32(b[20:])), bo.Uint32(b[24:]), nil
	}
	if shnum == 0 || shstrndx == uint64(elf.SHN_XINDEX) {
		// Past 0xff00 sections, the count and the name table's index live in section 0.
		_, _, _, sz, link, err := readShdr(0)
		if err != nil {
			return err
		}
		if shnum == 0 {
			shnum = sz
		}
		if shstrndx == uint64(elf.SHN_XINDEX) {
			shstrndx = uint64(link)
		}
	}
	if shnum > maxSections {
		return malformed("%d section headers, more than %d", shnum, maxSections)
	}
	if !inFile(shoff, shnum*shentsize, size) {
		return malformed("section headers (%d of %d bytes at %d) lie beyond the file's %d bytes", shnum, shentsize, shoff, size)
	}
	if shstrndx == uint64(elf.SHN_UNDEF) || shstrndx >= shnum {
		return nil
	}
	typ, flags, off, sz, _, err := readShdr(shstrndx)
	if err != nil {
		return err
	}
	if elf.SectionType(typ) == elf.SHT_NOBITS {
		return nil
	}
	if flags&uint64(elf.SHF_COMPRESSED) != 0 {
		return malformed("the section-name table is compressed")
	}
	if sz > maxStrtabBytes || !inFile(off, sz, size) {
		return malformed("the section-name table claims %d bytes at %d (file %d bytes, bound %d)", sz, off, size, maxStrtabBytes)
	}
	return nil
}

// sectionCap is the most a reader here takes of a section of type t, or 0 for the types
// it never reads.
func sectionCap(t elf.SectionType) uint64 {
	switch t {
	case elf.SHT_SYMTAB, elf.SHT_DYNSYM:
		return maxSymtabBytes
	case elf.SHT_STRTAB:
		return maxStrtabBytes
	case elf.SHT_DYNAMIC:
		return maxDynamicBytes
	case elf.SHT_GNU_VERSYM, elf.SHT_GNU_VERDEF, elf.SHT_GNU_VERNEED:
		return maxVersionBytes
	}
	return 0
}

// checkSections checks, after debug/elf parsed the headers and before any section is
// read, that every section that is read (symbol, string, dynamic and version tables)
// lies inside the file and is bounded, its uncompressed size included, and that the
// program interpreter's size is a path's.
func checkSections(f *elf.File, size int64) error {
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP && p.Filesz > maxInterp {
			return malformed("the program interpreter claims %d bytes, more than %d", p.Filesz, maxInterp)
		}
	}
	for _, s := range f.Sections {
		max := sectionCap(s.Type)
		if max == 0 || s.Type == elf.SHT_NOBITS {
			continue
		}
		if !inFile(s.Offset, s.FileSize, size) {
			return malformed("section %s (%d bytes at %d) lies beyond the file's %d bytes", s.Name, s.FileSize, s.Offset, size)
		}
		if s.Size > max || s.FileSize > max {
			return malformed("section %s of %s claims %d bytes, more than %d", s.Name, s.Type, s.Size, max)
		}
	}
	return nil
}

// openELF opens an ELF file with debug/elf after checking its headers, then checks its
// sections (see [checkELFHeader] and [checkSections]); a panic in debug/elf on a hostile
// file is an error too.
func openELF(r io.ReaderAt, size int64) (f *elf.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, malformed("debug/elf: %v", p)
		}
	}()
	if err := checkELFHeader(r, size); err != nil {
		return nil, err
	}
	f, err = elf.NewFile(r)
	if err != nil {
		return nil, malformed("%v", err)
	}
	if err := checkSections(f, size); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
