package verify

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// librarySymbols are the global symbols a library defines: for a shared library its
// defined dynamic symbols, for a static archive the defined global symbols of its
// members. Functions and Data are sorted and without duplicates; symbol versions are
// not part of the names.
type librarySymbols struct {
	// Soname is a shared library's DT_SONAME ("libz.so.1"); empty for an archive.
	Soname    string
	Functions []string
	Data      []string
}

// Defines reports whether the library defines name, as a function or as data.
func (l librarySymbols) Defines(name string) bool {
	return has(l.Functions, name) || has(l.Data, name)
}

func has(sorted []string, s string) bool {
	i := sort.SearchStrings(sorted, s)
	return i < len(sorted) && sorted[i] == s
}

// definedSymbols reads the global symbols a shared library or a static archive defines
// (see [librarySymbols]). An executable is read like a shared library (its dynamic
// symbols). Anything that is not ELF or an archive returns an error wrapping [ErrNotELF];
// a file whose headers or tables claim more than the file holds or the readers' caps
// allow, or on which debug/elf panics, one wrapping [ErrMalformedELF] too.
func definedSymbols(r io.ReaderAt) (ls librarySymbols, err error) {
	defer func() {
		if p := recover(); p != nil {
			ls, err = librarySymbols{}, fmt.Errorf("symbols: %w", malformed("debug/elf: %v", p))
		}
	}()
	magic := make([]byte, 8)
	n, err := r.ReadAt(magic, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return librarySymbols{}, fmt.Errorf("symbols: %w", err)
	}
	magic = magic[:n]
	set := symbolSet{fn: map[string]bool{}, data: map[string]bool{}}
	var soname string
	switch {
	case bytes.HasPrefix(magic, []byte(elf.ELFMAG)):
		f, err := openELF(r, readerSize(r))
		if err != nil {
			return librarySymbols{}, fmt.Errorf("symbols: %w", err)
		}
		defer f.Close()
		if names, err := f.DynString(elf.DT_SONAME); err == nil && len(names) > 0 {
			soname = names[0]
		}
		syms, err := f.DynamicSymbols()
		if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
			return librarySymbols{}, fmt.Errorf("symbols: dynamic symbols: %w", err)
		}
		set.add(syms)
	case string(magic) == arMagic:
		if err := archiveSymbols(r, readerSize(r), &set); err != nil {
			return librarySymbols{}, err
		}
	default:
		return librarySymbols{}, ErrNotELF
	}
	return librarySymbols{Soname: soname, Functions: set.sorted(set.fn), Data: set.sorted(set.data)}, nil
}

type symbolSet struct{ fn, data map[string]bool }

// add keeps the defined global and weak symbols that name functions or data.
func (s *symbolSet) add(syms []elf.Symbol) {
	for _, sym := range syms {
		if sym.Section == elf.SHN_UNDEF || sym.Name == "" {
			continue
		}
		switch elf.ST_BIND(sym.Info) {
		case elf.STB_GLOBAL, elf.STB_WEAK, elf.STB_LOOS: // STB_LOOS is STB_GNU_UNIQUE
		default:
			continue
		}
		if elf.ST_VISIBILITY(sym.Other) == elf.STV_HIDDEN || elf.ST_VISIBILITY(sym.Other) == elf.STV_INTERNAL {
			continue
		}
		name, _, _ := strings.Cut(sym.Name, "@")
		switch elf.ST_TYPE(sym.Info) {
		case elf.STT_FUNC, elf.STT_GNU_IFUNC:
			s.fn[name] = true
		case elf.STT_OBJECT, elf.STT_TLS, elf.STT_COMMON, elf.STT_NOTYPE:
			s.data[name] = true
		}
	}
}

func (s *symbolSet) sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// archiveSymbols adds the defined globals of every ELF member of an ar archive.
func archiveSymbols(r io.ReaderAt, fileSize int64, set *symbolSet) error {
	off := int64(len(arMagic))
	hdr := make([]byte, arHeaderSize)
	for i := 0; i < maxArchiveMembers; i++ {
		n, err := r.ReadAt(hdr, off)
		if n == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		if n < arHeaderSize || string(hdr[58:60]) != "`\n" {
			return fmt.Errorf("symbols: bad archive header at %d: %w", off, ErrNotELF)
		}
		name := strings.TrimSpace(string(hdr[0:16]))
		size, err := strconv.ParseInt(strings.TrimSpace(string(hdr[48:58])), 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("symbols: bad archive member size at %d: %w", off, ErrNotELF)
		}
		body := off + arHeaderSize
		if size > fileSize-body {
			return fmt.Errorf("symbols: archive member %s: %w", strings.TrimSuffix(name, "/"), malformed("claims %d bytes at %d of a %d-byte archive", size, body, fileSize))
		}
		off = body + size + size%2
		if size > 0 {
			if k, _ := r.ReadAt(make([]byte, 1), body+size-1); k != 1 {
				return fmt.Errorf("symbols: archive member %s is truncated: %w", strings.TrimSuffix(name, "/"), ErrNotELF)
			}
		}
		if name == "/" || name == "//" || name == "/SYM64/" || strings.HasPrefix(name, "__.SYMDEF") {
			continue
		}
		data := io.NewSectionReader(r, body, size)
		if rest, ok := strings.CutPrefix(name, "#1/"); ok {
			if l, err := strconv.ParseInt(rest, 10, 64); err == nil && l >= 0 && l <= size {
				data = io.NewSectionReader(r, body+l, size-l)
			}
		}
		m := make([]byte, 4)
		if k, _ := data.ReadAt(m, 0); k != 4 || string(m) != elf.ELFMAG {
			continue
		}
		f, err := openELF(data, data.Size())
		if err != nil {
			return fmt.Errorf("symbols: archive member %s: %w", strings.TrimSuffix(name, "/"), err)
		}
		syms, err := f.Symbols()
		f.Close()
		if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
			return fmt.Errorf("symbols: archive member %s: %w", strings.TrimSuffix(name, "/"), err)
		}
		set.add(syms)
	}
	return nil
}
