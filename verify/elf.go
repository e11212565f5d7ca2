package verify

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/riscvisa"
)

// ErrNotELF is returned by [InspectELF] for a file that is neither an ELF file nor a
// static archive of ELF objects (a script, a text file, ...).
var ErrNotELF = errors.New("not an ELF file or static archive")

const (
	efRISCVFloatABIMask = 0x6
	df1PIE              = 0x08000000
	arMagic             = "!<arch>\n"
	arHeaderSize        = 60
	maxArchiveMembers   = 1 << 16
)

// floatABI returns the RISC-V float ABI named by e_flags for the class: lp64, lp64f,
// lp64d or lp64q (ilp32… for 32-bit).
func floatABI(class elf.Class, flags uint32) string {
	prefix := "lp64"
	if class == elf.ELFCLASS32 {
		prefix = "ilp32"
	}
	switch flags & efRISCVFloatABIMask {
	case 0x2:
		return prefix + "f"
	case 0x4:
		return prefix + "d"
	case 0x6:
		return prefix + "q"
	}
	return prefix
}

// InspectELF describes one ELF file or one static archive (ar) of ELF objects: class,
// machine, whether it is riscv64, the float ABI, the program interpreter, static or
// dynamic, stripped or not, the needed libraries, the kind (executable, shared library,
// static library, object), the size and the SHA-256 of the whole file. Archives are
// checked member by member: an archive is riscv64 only when every ELF member is. An
// archive of Go compiler objects and no ELF member is a Go package archive
// ([atesor.KindGoArchive]), riscv64 when every object's header names linux/riscv64. A
// non-riscv64 file is described (with Problem set), not rejected. The returned Path is
// empty; the caller sets it. Anything else returns an error wrapping [ErrNotELF].
func InspectELF(r io.ReaderAt) (atesor.Artifact, error) {
	var a atesor.Artifact
	magic := make([]byte, 8)
	n, err := r.ReadAt(magic, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return a, fmt.Errorf("inspect: %w", err)
	}
	magic = magic[:n]
	size := readerSize(r)
	switch {
	case bytes.HasPrefix(magic, []byte(elf.ELFMAG)):
		a, err = inspectELFFile(r, size)
	case string(magic) == arMagic:
		a, err = inspectArchive(r, size)
	default:
		return a, ErrNotELF
	}
	if err != nil {
		return a, err
	}
	h := sha256.New()
	size, err = io.Copy(h, io.NewSectionReader(r, 0, size))
	if err != nil {
		return a, fmt.Errorf("inspect: hash: %w", err)
	}
	a.Size = size
	a.SHA256 = hex.EncodeToString(h.Sum(nil))
	return a, nil
}

// inspectELFFile describes one ELF file of size bytes. Its headers and the sections it
// reads are checked against the file's size and the caps of [openELF] first, so a size
// field cannot make it allocate more than the file holds or the caps allow.
func inspectELFFile(r io.ReaderAt, size int64) (a atesor.Artifact, err error) {
	defer func() {
		// debug/elf is robust, but a hostile file must never crash the caller.
		if p := recover(); p != nil {
			err = fmt.Errorf("inspect: %w", malformed("debug/elf: %v", p))
		}
	}()
	f, err := openELF(r, size)
	if err != nil {
		return a, fmt.Errorf("inspect: %w", err)
	}
	defer f.Close()
	a.Class = f.Class.String()
	a.Machine = f.Machine.String()
	a.RISCV64 = f.Class == elf.ELFCLASS64 && f.Machine == elf.EM_RISCV
	if f.Machine == elf.EM_RISCV {
		flags, err := elfFlags(r, f)
		if err != nil {
			return a, err
		}
		a.FloatABI = floatABI(f.Class, flags)
		isa, err := elfISA(f)
		if err != nil {
			return a, fmt.Errorf("inspect: %w", err)
		}
		a.ISA = isa
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
				return a, fmt.Errorf("inspect: interpreter: %w", err)
			}
			a.Interpreter = strings.TrimRight(string(b), "\x00")
		}
	}
	a.Stripped = f.Section(".symtab") == nil
	needed, _ := f.ImportedLibraries()
	a.Needed = needed
	switch f.Type {
	case elf.ET_EXEC:
		a.Kind = atesor.KindExecutable
		a.Static = a.Interpreter == "" && len(needed) == 0
	case elf.ET_DYN:
		pie := false
		if vals, err := f.DynValue(elf.DT_FLAGS_1); err == nil {
			for _, v := range vals {
				if v&df1PIE != 0 {
					pie = true
				}
			}
		}
		if a.Interpreter != "" || pie {
			a.Kind = atesor.KindExecutable
			a.Static = a.Interpreter == "" && len(needed) == 0
		} else {
			a.Kind = atesor.KindSharedLibrary
		}
	case elf.ET_REL:
		a.Kind = atesor.KindObject
		a.Static = true
	default:
		return a, fmt.Errorf("inspect: ELF type %s: %w", f.Type, ErrNotELF)
	}
	if !a.RISCV64 {
		a.Problem = fmt.Sprintf("not riscv64: %s %s", a.Class, a.Machine)
	}
	return a, nil
}

// elfFlags reads e_flags, which debug/elf does not expose.
func elfFlags(r io.ReaderAt, f *elf.File) (uint32, error) {
	off := int64(0x30)
	if f.Class == elf.ELFCLASS32 {
		off = 0x24
	}
	b := make([]byte, 4)
	if _, err := r.ReadAt(b, off); err != nil {
		return 0, fmt.Errorf("inspect: e_flags: %w", err)
	}
	return f.ByteOrder.Uint32(b), nil
}

// inspectArchive checks a System V / GNU ar archive of size bytes member by member.
func inspectArchive(r io.ReaderAt, fileSize int64) (atesor.Artifact, error) {
	a := atesor.Artifact{Kind: atesor.KindStaticLibrary, Static: true}
	off := int64(len(arMagic))
	hdr := make([]byte, arHeaderSize)
	allRISCV, allStripped := true, true
	var problems, goProblems []string
	goMembers, goMachine := 0, ""
	var archISA riscvisa.ISA
	for i := 0; i < maxArchiveMembers; i++ {
		n, err := r.ReadAt(hdr, off)
		if n == 0 && errors.Is(err, io.EOF) {
			break
		}
		if n < arHeaderSize {
			return a, fmt.Errorf("inspect: truncated archive header at %d: %w", off, ErrNotELF)
		}
		if string(hdr[58:60]) != "`\n" {
			return a, fmt.Errorf("inspect: bad archive header at %d: %w", off, ErrNotELF)
		}
		name := strings.TrimSpace(string(hdr[0:16]))
		size, err := strconv.ParseInt(strings.TrimSpace(string(hdr[48:58])), 10, 64)
		if err != nil || size < 0 {
			return a, fmt.Errorf("inspect: bad archive member size at %d: %w", off, ErrNotELF)
		}
		body := off + arHeaderSize
		if size > fileSize-body {
			return a, fmt.Errorf("inspect: archive member %s: %w", strings.TrimSuffix(name, "/"), malformed("claims %d bytes at %d of a %d-byte archive", size, body, fileSize))
		}
		next := body + size
		if size%2 == 1 {
			next++
		}
		// Symbol tables and the GNU long-name table are not members.
		special := name == "/" || name == "//" || name == "/SYM64/" || name == "__.SYMDEF" || name == "__.SYMDEF SORTED"
		if !special {
			data := io.NewSectionReader(r, body, size)
			// BSD archives store long names in front of the data: "#1/<len>".
			if rest, ok := strings.CutPrefix(name, "#1/"); ok {
				if l, err := strconv.ParseInt(rest, 10, 64); err == nil && l >= 0 && l <= size {
					data = io.NewSectionReader(r, body+l, size-l)
				}
			}
			m := make([]byte, 4)
			if goos, goarch, ok := goObjectHeader(data); ok {
				goMembers++
				if goMembers == 1 {
					goMachine = goarch
				} else if goarch != goMachine {
					goMachine = "mixed"
				}
				if goos != "linux" || goarch != "riscv64" {
					goProblems = append(goProblems, fmt.Sprintf("member %s is a Go object for %s/%s", strings.TrimSuffix(name, "/"), goos, goarch))
				}
			} else if k, _ := data.ReadAt(m, 0); k == 4 && string(m) == elf.ELFMAG {
				ma, err := inspectELFFile(data, data.Size())
				if err != nil {
					return a, fmt.Errorf("inspect: archive member %s: %w", name, err)
				}
				a.Members++
				if ma.ISA != "" {
					isa, err := riscvisa.ParseISA(ma.ISA)
					if err == nil {
						archISA = riscvisa.Union(archISA, isa)
						a.ISA = archISA.String()
					}
				}
				if a.Members == 1 {
					a.Class, a.Machine, a.FloatABI = ma.Class, ma.Machine, ma.FloatABI
				} else {
					if ma.Machine != a.Machine {
						a.Machine = "mixed"
					}
					if ma.FloatABI != a.FloatABI {
						problems = append(problems, fmt.Sprintf("member %s uses float ABI %s, not %s", strings.TrimSuffix(name, "/"), ma.FloatABI, a.FloatABI))
					}
				}
				if !ma.RISCV64 {
					allRISCV = false
					problems = append(problems, fmt.Sprintf("member %s is %s %s", strings.TrimSuffix(name, "/"), ma.Class, ma.Machine))
				}
				allStripped = allStripped && ma.Stripped
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		off = next
	}
	if a.Members == 0 && goMembers > 0 {
		return goArchive(a, goMembers, goMachine, goProblems), nil
	}
	if a.Members == 0 {
		a.RISCV64 = false
		a.Problem = "static archive without ELF members"
		return a, nil
	}
	a.RISCV64 = allRISCV
	a.Stripped = allStripped
	if len(problems) > 0 {
		if len(problems) > 5 {
			problems = append(problems[:5], fmt.Sprintf("and %d more", len(problems)-5))
		}
		a.Problem = "not riscv64: " + strings.Join(problems, "; ")
		if allRISCV {
			a.Problem = strings.Join(problems, "; ")
		}
	}
	return a, nil
}

// goObjectPrefix starts the first line of each member of a Go package archive (its
// export data, __.PKGDEF, and its code, _go_.o): "go object linux riscv64 go1.24.4
// GORISCV64=rva20u64 X:...".
const goObjectPrefix = "go object "

// goObjectHeader reads the GOOS and GOARCH of a Go compiler object's header; ok is false
// for any other member.
func goObjectHeader(r io.ReaderAt) (goos, goarch string, ok bool) {
	b := make([]byte, 128)
	n, _ := r.ReadAt(b, 0)
	line, _, _ := strings.Cut(string(b[:n]), "\n")
	rest, found := strings.CutPrefix(line, goObjectPrefix)
	if !found {
		return "", "", false
	}
	f := strings.Fields(rest)
	if len(f) < 2 {
		return "", "", false
	}
	return f[0], f[1], true
}

// goArchive describes an archive whose members are all Go compiler objects (n of them,
// for GOARCH machine, "mixed" when they differ): a Go package archive, riscv64 when
// every object was compiled for linux/riscv64. Go has one ABI on linux/riscv64, with
// the float registers of lp64d (RV64G is the port's baseline), so that is the
// archive's float ABI; it carries no ISA string, as the Go linker writes none into the
// programs it links.
func goArchive(a atesor.Artifact, n int, machine string, problems []string) atesor.Artifact {
	a.Kind, a.Class, a.Machine, a.Members = atesor.KindGoArchive, "go object", machine, n
	a.RISCV64 = len(problems) == 0
	if !a.RISCV64 {
		if len(problems) > 5 {
			problems = append(problems[:5], fmt.Sprintf("and %d more", len(problems)-5))
		}
		a.Problem = "not riscv64: " + strings.Join(problems, "; ")
		return a
	}
	a.FloatABI = "lp64d"
	return a
}

// CheckArtifact says why an inspected artifact does not suit the platform, or returns
// nil: it must be a 64-bit RISC-V ELF with the profile's float ABI, and a dynamic
// executable must use the profile's program interpreter.
func CheckArtifact(a atesor.Artifact, p atesor.Platform) error {
	if !a.RISCV64 {
		if a.Problem != "" {
			return errors.New(a.Problem)
		}
		return fmt.Errorf("not riscv64: %s %s", a.Class, a.Machine)
	}
	if a.Problem != "" {
		return errors.New(a.Problem)
	}
	if p.FloatABI != "" && a.FloatABI != p.FloatABI {
		return fmt.Errorf("float ABI %s, the %s profile needs %s", a.FloatABI, p.Profile, p.FloatABI)
	}
	if a.Kind == atesor.KindExecutable && !a.Static && p.Loader != "" && a.Interpreter != p.Loader {
		return fmt.Errorf("program interpreter %s, the %s profile's loader is %s", a.Interpreter, p.Profile, p.Loader)
	}
	return checkISA(a, p)
}

// checkISA refuses an artifact compiled for extensions beyond the platform's baseline:
// it runs under an emulator that implements them and dies with SIGILL on the hardware
// the distribution targets. An -march that leaked into a build file is the usual cause.
func checkISA(a atesor.Artifact, p atesor.Platform) error {
	if p.ISABaseline == "" || a.ISA == "" {
		return nil
	}
	base, err := riscvisa.LookupProfile(p.ISABaseline)
	if err != nil {
		return fmt.Errorf("the %s profile's ISA baseline: %w", p.Profile, err)
	}
	isa, err := riscvisa.ParseISA(a.ISA)
	if err != nil {
		return fmt.Errorf("the artifact's ISA: %w", err)
	}
	if extra := base.Beyond(isa); len(extra) > 0 {
		return fmt.Errorf("needs the RISC-V extension(s) %s beyond the %s profile's %s baseline (compiled for %s): remove the -march/-mcpu that selects them from the build, or port for a platform whose baseline has them",
			strings.Join(extra, ", "), p.Profile, p.ISABaseline, a.ISA)
	}
	return nil
}

// elfISA reads the architecture string of a RISC-V ELF file's .riscv.attributes section,
// or "" when it has none. The section's size is checked before it is read.
func elfISA(f *elf.File) (string, error) {
	s := f.Section(riscvisa.SectionName)
	if s == nil {
		return "", nil
	}
	if s.Type == elf.SHT_NOBITS {
		return "", malformed("%s has no contents", riscvisa.SectionName)
	}
	if s.Flags&elf.SHF_COMPRESSED != 0 || s.Size > riscvisa.MaxSectionSize {
		return "", malformed("%s of %d bytes (compressed or above %d)", riscvisa.SectionName, s.Size, riscvisa.MaxSectionSize)
	}
	data, err := s.Data()
	if err != nil {
		return "", malformed("%s: %v", riscvisa.SectionName, err)
	}
	attrs, err := riscvisa.ParseAttributes(data)
	if err != nil {
		return "", malformed("%v", err)
	}
	return attrs.Arch, nil
}
