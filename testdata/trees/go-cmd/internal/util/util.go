package util

// Answer is a helper.
func Answer() int { return 42 }
