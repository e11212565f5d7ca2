#include <stdio.h>
#include <string.h>

#include "simdsum.h"

/* A TAP test of the three functions. */
int main(void)
{
	const float a[] = {1, 2, 3, 4, 5, 6};
	const float b[] = {2, 2, 2, 2, 2, 2};
	int fails = 0;
	printf("1..3\n");
	int ok = strcmp(simdsum_version(), "1.0") == 0;
	fails += !ok;
	printf("%sok 1 - version\n", ok ? "" : "not ");
	ok = simdsum_add(a, 6) == 21;
	fails += !ok;
	printf("%sok 2 - add\n", ok ? "" : "not ");
	ok = simdsum_dot(a, b, 6) == 42;
	fails += !ok;
	printf("%sok 3 - dot\n", ok ? "" : "not ");
	return fails != 0;
}
