// Package errors provides simple error handling primitives.
package errors
