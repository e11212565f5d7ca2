package main

import "github.com/acme/gizmo/v2/internal/core"

func main() { core.Run() }
