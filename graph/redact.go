package graph

import (
	"net/url"
	"strings"
)

// RedactURL removes credentials from a source URL (https://user:token@host/x.git becomes
// https://host/x.git), so that a token given to fetch a source never reaches the run
// state, the report, the recipe, the recipe cache, logs or the package zip. ssh URLs
// keep their user name (git@host:x.git), which is not a secret, but lose a password.
// Other sources (directories, tarball paths) come back unchanged.
func RedactURL(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		// A URL net/url cannot parse: cut any userinfo by hand.
		rest := s[i+3:]
		host := rest
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			host = rest[:j]
		}
		if k := strings.LastIndexByte(host, '@'); k >= 0 {
			return s[:i+3] + rest[k+1:]
		}
		return s
	}
	if u.Scheme == "ssh" || u.Scheme == "git+ssh" {
		u.User = url.User(u.User.Username())
	} else {
		u.User = nil
	}
	return u.String()
}

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
				return redactedError{msg: strings.ReplaceAll(err.Error(), p, "REDACTED"), err: err}
			}
		}
		return err
	}
	return redactedError{msg: strings.ReplaceAll(err.Error(), source, red), err: err}
}

// redactedError keeps the wrapped error for errors.Is/As and shows the redacted text.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

var _ interface{ Unwrap() error } = redactedError{}
