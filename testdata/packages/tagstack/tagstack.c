#include "tagstack.h"

#include <stdbool.h>
#include <stddef.h>

void ts_init(struct ts_stack *s)
{
	struct ts_head empty = { NULL, 0 };
	__atomic_store(&s->head, &empty, __ATOMIC_RELEASE);
}

void ts_push(struct ts_stack *s, struct ts_node *n)
{
	struct ts_head old, next;
	__atomic_load(&s->head, &old, __ATOMIC_ACQUIRE);
	do {
		n->next = old.top;
		next.top = n;
		next.gen = old.gen + 1;
	} while (!__atomic_compare_exchange(&s->head, &old, &next, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
}

struct ts_node *ts_pop(struct ts_stack *s)
{
	struct ts_head old, next;
	__atomic_load(&s->head, &old, __ATOMIC_ACQUIRE);
	do {
		if (old.top == NULL)
			return NULL;
		next.top = old.top->next;
		next.gen = old.gen + 1;
	} while (!__atomic_compare_exchange(&s->head, &old, &next, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	return old.top;
}
