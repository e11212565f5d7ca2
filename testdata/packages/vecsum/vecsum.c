#include "vecsum.h"

long vecsum_add(const long *values, size_t n)
{
	long sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += values[i];
	return sum;
}
