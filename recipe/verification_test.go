package recipe_test

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/recipe"
)

func TestWithVerification(t *testing.T) {
	md := "# p\n\n## Verification\n\nriscv64.\n\n## Known Issues\n\nnone\n"
	got := recipe.WithVerification(md, "EV")
	if want := "# p\n\n## Verification\n\nriscv64.\n\nEV\n## Known Issues\n\nnone\n"; got != want {
		t.Errorf("inserted:\n%q\nwant\n%q", got, want)
	}
	if again := recipe.WithVerification(got, "EV"); again != got {
		t.Errorf("inserted twice: %q", again)
	}
	if got := recipe.WithVerification("# p\n", "EV"); got != "# p\n\n## Verification\n\nEV" {
		t.Errorf("no section: %q", got)
	}
	if got := recipe.WithVerification(md, ""); got != md {
		t.Errorf("no evidence changed the recipe: %q", got)
	}
}

func TestVerdict(t *testing.T) {
	s := &atesor.State{}
	if v := recipe.Verdict(s); v != "NOT VERIFIED" {
		t.Errorf("unverified: %q", v)
	}
	s.Verified, s.Status = true, atesor.StatusTestsFailing
	if v := recipe.Verdict(s); v != "TESTS FAILING" {
		t.Errorf("tests failing: %q", v)
	}
	s.Status = atesor.StatusVerified
	if v := recipe.Verdict(s); v != "VERIFIED" {
		t.Errorf("verified: %q", v)
	}
}
