package riscvisa

import (
	"fmt"
	"sort"
	"strings"
)

// Profile is a baseline a platform promises its hardware meets: the extensions a binary
// may use and still run there.
type Profile struct {
	// Name is the profile's name as platforms declare it: "rv64gc", "rva20u64",
	// "rva22u64", "rva23u64", or an architecture string.
	Name string
	isa  ISA
}

// profiles are the RISC-V International application profiles (user mode) and the
// classic rv64gc baseline, as architecture strings.
var profiles = map[string]string{
	"rv64gc":   "rv64gc",
	"rva20u64": "rv64gc_zicntr_zihpm_ziccif_ziccrse_ziccamoa_zicclsm_za128rs",
	"rva22u64": "rv64gc_zicntr_zihpm_ziccif_ziccrse_ziccamoa_zicclsm_za64rs_zihintpause_zba_zbb_zbs_zicbom_zicbop_zicboz_zfhmin_zkt",
	"rva23u64": "rv64gcv_zicntr_zihpm_ziccif_ziccrse_ziccamoa_zicclsm_za64rs_zihintpause_zba_zbb_zbs_zicbom_zicbop_zicboz_zfhmin_zkt_zvfhmin_zvbb_zvkt_zihintntl_zicond_zimop_zcmop_zcb_zfa_zawrs_supm",
}

// LookupProfile returns the profile called name: one of the named profiles, or any
// architecture string taken as the baseline itself.
func LookupProfile(name string) (Profile, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	s, ok := profiles[n]
	if !ok {
		s = n
	}
	isa, err := ParseISA(s)
	if err != nil {
		return Profile{}, fmt.Errorf("unknown RISC-V profile %q (named ones: rv64gc, rva20u64, rva22u64, rva23u64; or an architecture string): %w", name, err)
	}
	return Profile{Name: n, isa: isa}, nil
}

// Beyond returns the extensions isa needs that the profile does not offer, without
// those that another one of them implies (so a vector build says "v", not v and its
// nine subsets), sorted. Nothing means the file runs on the profile's hardware.
func (p Profile) Beyond(isa ISA) []string {
	base := p.isa.expanded()
	need := isa.expanded()
	extra := map[string]bool{}
	for e := range need {
		if !base[e] {
			extra[e] = true
		}
	}
	implied := map[string]bool{}
	for e := range extra {
		var walk func(string)
		walk = func(x string) {
			for _, y := range implies[x] {
				if !implied[y] {
					implied[y] = true
					walk(y)
				}
			}
		}
		walk(e)
	}
	var out []string
	for e := range extra {
		if !implied[e] {
			out = append(out, e)
		}
	}
	sort.Strings(out)
	if isa.XLEN != 0 && p.isa.XLEN != 0 && isa.XLEN != p.isa.XLEN {
		out = append([]string{fmt.Sprintf("rv%d", isa.XLEN)}, out...)
	}
	return out
}
