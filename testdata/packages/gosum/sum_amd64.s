//go:build !purego

#include "textflag.h"

// func sum(xs []uint64) uint64
TEXT ·sum(SB), NOSPLIT, $0-32
	MOVQ xs_base+0(FP), SI
	MOVQ xs_len+8(FP), CX
	XORQ AX, AX

loop:
	TESTQ CX, CX
	JZ    done
	ADDQ  (SI), AX
	ADDQ  $8, SI
	DECQ  CX
	JMP   loop

done:
	MOVQ AX, ret+24(FP)
	RET
