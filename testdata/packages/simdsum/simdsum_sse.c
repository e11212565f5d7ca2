#include <xmmintrin.h>

#include "simdsum.h"

/* simdsum_dot multiplies four lanes at a time with SSE. */
float simdsum_dot(const float *a, const float *b, size_t n)
{
	__m128 acc = _mm_setzero_ps();
	size_t i = 0;
	for (; i + 4 <= n; i += 4)
		acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
	float lanes[4];
	_mm_storeu_ps(lanes, acc);
	float s = lanes[0] + lanes[1] + lanes[2] + lanes[3];
	for (; i < n; i++)
		s += a[i] * b[i];
	return s;
}
