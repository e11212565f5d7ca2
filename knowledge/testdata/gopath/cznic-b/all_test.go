// Copyright 2014 The b Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package b

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/cznic/mathutil"
	"github.com/cznic/strutil"
)
