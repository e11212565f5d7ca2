//go:build !purego

#include "textflag.h"

// func sum(xs []uint64) uint64
TEXT ·sum(SB), NOSPLIT, $0-32
	MOVD xs_base+0(FP), R0
	MOVD xs_len+8(FP), R1
	MOVD $0, R2

loop:
	CBZ    R1, done
	MOVD.P 8(R0), R3
	ADD    R3, R2, R2
	SUB    $1, R1, R1
	B      loop

done:
	MOVD R2, ret+24(FP)
	RET
