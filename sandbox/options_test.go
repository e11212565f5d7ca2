package sandbox

import "testing"

func TestCABundlePath(t *testing.T) {
	t.Setenv("SSL_CERT_FILE", "/custom/ca.pem")
	if got := buildOptions(nil).caBundlePath(); got != "/custom/ca.pem" {
		t.Errorf("SSL_CERT_FILE: %q", got)
	}
	if got := buildOptions([]Option{WithCABundle("")}).caBundlePath(); got != "" {
		t.Errorf("disabled: %q", got)
	}
	if got := buildOptions([]Option{WithCABundle("/x.pem")}).caBundlePath(); got != "/x.pem" {
		t.Errorf("configured: %q", got)
	}
}
