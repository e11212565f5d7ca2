#include <stdio.h>
#include <stdlib.h>
#include "vecsum.h"

int main(int argc, char **argv)
{
	long values[64];
	size_t n = 0;
	for (int i = 1; i < argc && n < 64; i++)
		values[n++] = strtol(argv[i], NULL, 10);
	printf("%ld\n", vecsum_add(values, n));
	return 0;
}
