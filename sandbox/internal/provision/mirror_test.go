package provision

import "testing"

func TestAlpineMinirootfsURL(t *testing.T) {
	if u := alpineMinirootfsURL("https://m.invalid/alpine", "3.22.1"); u != "https://m.invalid/alpine/v3.22/releases/riscv64/alpine-minirootfs-3.22.1-riscv64.tar.gz" {
		t.Errorf("url %s", u)
	}
}
