package llm_test

import (
	"github.com/google/go-cmp/cmp/cmpopts"
)

var cmpApprox = cmpopts.EquateApprox(0, 1e-12)
