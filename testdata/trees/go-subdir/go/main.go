package main

/*
#cgo pkg-config: sqlite3
#cgo LDFLAGS: -lz
#include <zlib.h>
*/
import "C"

func main() {}
