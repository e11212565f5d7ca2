package redact

import (
	"bytes"
	"regexp"
	"strings"
)

// userinfo matches the user information of a URL (https://user:token@host), up to the
// last @ of the authority, as URL parsers read it.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s"']*@`)

// Bytes drops the user information of every URL in text, keeping an ssh URL's user
// name (git@host is an address, not a secret). It returns text itself when there is
// nothing to drop.
func Bytes(text []byte) []byte {
	return userinfo.ReplaceAllFunc(text, func(m []byte) []byte {
		i := bytes.Index(m, []byte("://"))
		scheme := strings.ToLower(string(m[:i]))
		user := m[i+3 : len(m)-1]
		if scheme == "ssh" || scheme == "git+ssh" {
			if j := bytes.IndexByte(user, ':'); j >= 0 {
				return append(append(append([]byte{}, m[:i+3]...), user[:j]...), '@')
			}
			return m
		}
		return m[:i+3]
	})
}

// URLs returns s with the credentials of every URL in it removed
// (https://user:token@host becomes https://host; an ssh URL keeps its user name), for
// the text of errors, logs and reports. Text without a URL is returned unchanged.
func URLs(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return string(Bytes([]byte(s)))
}

// Error returns err with the credentials of every URL in its text removed; the result
// still wraps err for errors.Is and errors.As.
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := URLs(msg); red != msg {
		return Replaced(err, red)
	}
	return err
}

// Replaced returns an error whose text is msg and which wraps err, for a caller that
// took a credential out of err's text by other means (a password it knows).
func Replaced(err error, msg string) error { return redactedError{msg: msg, err: err} }

// redactedError keeps the wrapped error for errors.Is/As and shows the redacted text.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

var _ interface{ Unwrap() error } = redactedError{}
