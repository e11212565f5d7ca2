package source

import (
	"net/url"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/redact"
)

// RedactURL removes credentials from a source URL (https://user:token@host/x.git becomes
// https://host/x.git; an ssh URL keeps its user name). Anything that is not a URL is
// returned unchanged.
func RedactURL(s string) string { return redact.URLs(s) }

// RedactError returns err with the credentials of source removed from its text (a
// failed clone or download names the URL it was given).
func RedactError(err error, source string) error {
	if err == nil {
		return nil
	}
	red := RedactURL(source)
	if red == source || !strings.Contains(err.Error(), source) {
		if u, perr := url.Parse(source); perr == nil && u.User != nil {
			if p, ok := u.User.Password(); ok && p != "" && strings.Contains(err.Error(), p) {
				return redact.Replaced(err, strings.ReplaceAll(err.Error(), p, "REDACTED"))
			}
		}
		return redact.Error(err)
	}
	return redact.Error(redact.Replaced(err, strings.ReplaceAll(err.Error(), source, red)))
}
