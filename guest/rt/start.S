/* Entry, image header and interrupt stubs of the guest image. The host
 * builds GDT, IDT and page tables and enters eb_entry in long mode. */
#define STUB_SIZE 16

	.section .header, "a"
	.globl eb_header
eb_header:
	.long 0x54495845, 1
	.quad eb_entry
	.quad eb_isr_stubs
	.quad __start_eb_bodies
	.quad __stop_eb_bodies
	.quad __image_end

	.text
	.globl eb_entry
eb_entry:
	xor %ebp, %ebp
	call guest_main
1:	cli
	hlt
	jmp 1b

/* One stub per vector, STUB_SIZE apart, so the host can compute addresses.
 * Vectors whose exceptions push an error code skip the dummy push. */
	.balign STUB_SIZE
	.globl eb_isr_stubs
eb_isr_stubs:
	vector = 0
	.rept 256
	.balign STUB_SIZE
	.if (vector == 8 || (vector >= 10 && vector <= 14) || vector == 17 || vector == 21 || vector == 29 || vector == 30)
	.else
	pushq $0
	.endif
	pushq $vector
	jmp isr_common
	vector = vector + 1
	.endr

isr_common:
	push %rax
	push %rbx
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %rbp
	push %r8
	push %r9
	push %r10
	push %r11
	push %r12
	push %r13
	push %r14
	push %r15
	mov %rsp, %rdi
	call eb_isr
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rbp
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rbx
	pop %rax
	add $16, %rsp
	iretq

	.section .note.GNU-stack, "", @progbits
