package errors
