#ifndef TAGSTACK_H
#define TAGSTACK_H

#include <stdint.h>

/* A node of the stack; the caller owns its memory. */
struct ts_node {
	struct ts_node *next;
	long value;
};

/* The head: the top node and a counter bumped by every change, compared and swapped
 * as one 16-byte value so that a pop never acts on a node that was popped and pushed
 * again in between. */
struct ts_head {
	struct ts_node *top;
	uintptr_t gen;
} __attribute__((aligned(16)));

struct ts_stack {
	struct ts_head head;
};

void ts_init(struct ts_stack *s);
void ts_push(struct ts_stack *s, struct ts_node *n);
struct ts_node *ts_pop(struct ts_stack *s);

#endif
