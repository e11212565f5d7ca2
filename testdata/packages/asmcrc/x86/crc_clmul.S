/* A stand-in for a hand-written x86-64 routine: it calls the portable code. */
	.text
	.globl	asmcrc_update_clmul
	.type	asmcrc_update_clmul, @function
asmcrc_update_clmul:
	jmp	asmcrc_update
	.size	asmcrc_update_clmul, .-asmcrc_update_clmul
	.section	.note.GNU-stack,"",@progbits
