package sandboxtest

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"sync"
)

// Hostile ELF files, as a build can leave them where the host inspects artifacts: each
// is small, and each has a size field that claims far more than the file holds, so a
// reader that allocates from size fields runs the host out of memory.

// HostileELF names the hostile ELF files [HostileELFs] returns.
type HostileELF string

// The hostile ELF files.
const (
	// InterpBomb: a 153-byte riscv64 executable whose PT_INTERP claims 64 GiB.
	InterpBomb HostileELF = "interp-64GiB"
	// SectionCountBomb: section 0 says there are 2^40 sections (the extended count).
	SectionCountBomb HostileELF = "shnum-2^40"
	// SectionEntryBomb: 65535 section headers of 65535 bytes each, at the file's end.
	SectionEntryBomb HostileELF = "shentsize-65535"
	// SymtabBomb: a shared library whose .dynsym claims 2^40 bytes.
	SymtabBomb HostileELF = "dynsym-2^40"
	// CompressedStrtabBomb: a 130 KB shared library whose .dynstr is compressed and
	// inflates to 128 MiB, which a reader of its dynamic symbols holds whole.
	CompressedStrtabBomb HostileELF = "compressed-dynstr-128MiB"
	// ShstrtabBomb: the section-name table, which a reader reads while it opens the file,
	// claims 64 GiB.
	ShstrtabBomb HostileELF = "shstrtab-64GiB"
)

// HostileELFs returns each hostile ELF file by name.
func HostileELFs() map[HostileELF][]byte {
	return map[HostileELF][]byte{
		InterpBomb:           interpBomb(),
		SectionCountBomb:     sectionCountBomb(),
		SectionEntryBomb:     sectionEntryBomb(),
		SymtabBomb:           symtabBomb(),
		CompressedStrtabBomb: compressedBomb(),
		ShstrtabBomb:         shstrtabBomb(),
	}
}

var le = binary.LittleEndian

// header returns a 64-byte ELF64 little-endian riscv64 header of type typ.
func header(typ elf.Type, phoff uint64, phnum uint16, shoff uint64, shnum, shstrndx uint16) []byte {
	h := make([]byte, 64)
	copy(h, elf.ELFMAG)
	h[elf.EI_CLASS], h[elf.EI_DATA], h[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	le.PutUint16(h[0x10:], uint16(typ))
	le.PutUint16(h[0x12:], uint16(elf.EM_RISCV))
	le.PutUint32(h[0x14:], uint32(elf.EV_CURRENT))
	le.PutUint64(h[0x20:], phoff)
	le.PutUint64(h[0x28:], shoff)
	le.PutUint32(h[0x30:], 0x4) // double-float ABI
	le.PutUint16(h[0x34:], 64)
	le.PutUint16(h[0x36:], 56)
	le.PutUint16(h[0x38:], phnum)
	le.PutUint16(h[0x3a:], 64)
	le.PutUint16(h[0x3c:], shnum)
	le.PutUint16(h[0x3e:], shstrndx)
	return h
}

func interpBomb() []byte {
	const path = "/lib/ld-linux-riscv64-lp64d.so.1\x00" // 33 bytes
	b := header(elf.ET_EXEC, 64, 1, 0, 0, 0)
	ph := make([]byte, 56)
	le.PutUint32(ph[0:], uint32(elf.PT_INTERP))
	le.PutUint32(ph[4:], uint32(elf.PF_R))
	le.PutUint64(ph[8:], 120)     // p_offset: the path right after this header
	le.PutUint64(ph[32:], 64<<30) // p_filesz: 64 GiB
	le.PutUint64(ph[40:], 64<<30) // p_memsz
	le.PutUint64(ph[48:], 1)      // p_align
	return append(append(b, ph...), path...)
}

// shdr returns one 64-byte section header.
func shdr(name uint32, typ elf.SectionType, flags elf.SectionFlag, off, size uint64, link uint32, entsize uint64) []byte {
	s := make([]byte, 64)
	le.PutUint32(s[0:], name)
	le.PutUint32(s[4:], uint32(typ))
	le.PutUint64(s[8:], uint64(flags))
	le.PutUint64(s[24:], off)
	le.PutUint64(s[32:], size)
	le.PutUint32(s[40:], link)
	le.PutUint64(s[48:], 1)
	le.PutUint64(s[56:], entsize)
	return s
}

func sectionCountBomb() []byte {
	b := header(elf.ET_DYN, 0, 0, 64, 0, 0)
	return append(b, shdr(0, elf.SHT_NULL, 0, 0, 1<<40, 0, 0)...)
}

func sectionEntryBomb() []byte {
	b := header(elf.ET_DYN, 0, 0, 64, 0xfeff, 0)
	le.PutUint16(b[0x3a:], 0xffff)
	return append(b, make([]byte, 64)...)
}

// library returns a shared library with a section-name table, a .dynsym of dynsymSize
// bytes (its first symbol at the start of body) and a .dynstr of strBody (with flags).
func library(dynsymSize uint64, strFlags elf.SectionFlag, strSize uint64, strBody []byte) []byte {
	const names = "\x00.shstrtab\x00.dynsym\x00.dynstr\x00"
	const shoff = 64
	dataOff := uint64(shoff + 4*64)
	sym := make([]byte, 24) // the null symbol
	var buf bytes.Buffer
	buf.Write(header(elf.ET_DYN, 0, 0, shoff, 4, 1))
	buf.Write(shdr(0, elf.SHT_NULL, 0, 0, 0, 0, 0))
	buf.Write(shdr(1, elf.SHT_STRTAB, 0, dataOff, uint64(len(names)), 0, 0))
	buf.Write(shdr(11, elf.SHT_DYNSYM, elf.SHF_ALLOC, dataOff+uint64(len(names)), dynsymSize, 3, 24))
	buf.Write(shdr(19, elf.SHT_STRTAB, strFlags, dataOff+uint64(len(names))+24, strSize, 0, 0))
	buf.WriteString(names)
	buf.Write(sym)
	buf.Write(strBody)
	return buf.Bytes()
}

func symtabBomb() []byte { return library(1<<40, 0, 1, []byte{0}) }

var (
	compressedOnce sync.Once
	compressed     []byte
)

func compressedBomb() []byte {
	compressedOnce.Do(func() {
		const inflated = 128 << 20
		var body bytes.Buffer
		chdr := make([]byte, 24) // Elf64_Chdr: type, reserved, size, alignment
		le.PutUint32(chdr[0:], uint32(elf.COMPRESS_ZLIB))
		le.PutUint64(chdr[8:], inflated)
		le.PutUint64(chdr[16:], 1)
		body.Write(chdr)
		zw, _ := zlib.NewWriterLevel(&body, zlib.BestCompression)
		zero := make([]byte, 1<<20)
		for i := 0; i < inflated>>20; i++ {
			_, _ = zw.Write(zero)
		}
		_ = zw.Close()
		compressed = library(24, elf.SHF_COMPRESSED, uint64(body.Len()), body.Bytes())
	})
	return bytes.Clone(compressed)
}

func shstrtabBomb() []byte {
	var buf bytes.Buffer
	buf.Write(header(elf.ET_DYN, 0, 0, 64, 2, 1))
	buf.Write(shdr(0, elf.SHT_NULL, 0, 0, 0, 0, 0))
	buf.Write(shdr(1, elf.SHT_STRTAB, 0, 192, 64<<30, 0, 0))
	buf.WriteString("\x00.shstrtab\x00")
	return buf.Bytes()
}
