// Package redact removes credentials from URLs in text. A source URL, a git remote or a
// provider's gateway URL may carry a user name and a token (https://user:token@host/...);
// the token is needed to fetch and must appear nowhere else: not in errors, logs,
// reports, recipes, nor in the git metadata a build can read. Every part of the module
// that shows or stores such a URL removes its credentials here, so there is one rule
// for what counts as credentials and one way of taking them out.
package redact
