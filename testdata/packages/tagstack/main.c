/* tagstack-demo THREADS ROUNDS: each thread pushes and pops ROUNDS nodes of its own
 * through one shared stack; the sum of the values popped must equal the sum pushed. */
#include "tagstack.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static struct ts_stack stack;
static long rounds;

struct worker {
	pthread_t thread;
	long popped;
	struct ts_node *nodes;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	for (long i = 0; i < rounds; i++) {
		w->nodes[i].value = i + 1;
		ts_push(&stack, &w->nodes[i]);
		struct ts_node *n = ts_pop(&stack);
		if (n != NULL)
			w->popped += n->value;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	rounds = argc > 2 ? atol(argv[2]) : 1000;
	if (threads < 1 || threads > 64 || rounds < 1) {
		fprintf(stderr, "usage: tagstack-demo [THREADS 1-64] [ROUNDS]\n");
		return 2;
	}
	struct worker *ws = calloc((size_t)threads, sizeof *ws);
	if (ws == NULL)
		return 1;
	ts_init(&stack);
	for (int t = 0; t < threads; t++) {
		ws[t].nodes = calloc((size_t)rounds, sizeof *ws[t].nodes);
		if (ws[t].nodes == NULL || pthread_create(&ws[t].thread, NULL, work, &ws[t]) != 0)
			return 1;
	}
	long popped = 0;
	for (int t = 0; t < threads; t++) {
		pthread_join(ws[t].thread, NULL);
		popped += ws[t].popped;
	}
	for (struct ts_node *n; (n = ts_pop(&stack)) != NULL;)
		popped += n->value;
	long want = (long)threads * rounds * (rounds + 1) / 2;
	printf("%d threads, %ld rounds: popped %ld, pushed %ld\n", threads, rounds, popped, want);
	return popped == want ? 0 : 1;
}
