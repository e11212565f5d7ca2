#include "simdsum.h"

const char *simdsum_version(void)
{
	return "1.0";
}

float simdsum_add(const float *v, size_t n)
{
	float s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}
