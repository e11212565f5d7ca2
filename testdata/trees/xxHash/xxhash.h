#ifndef XXHASH_H
#define XXHASH_H
#if defined(__SSE2__) || defined(_M_X64)
#  include <emmintrin.h>
#  define XXH_VECTOR XXH_SSE2
#elif defined(__ARM_NEON)
#  include <arm_neon.h>
#  define XXH_VECTOR XXH_NEON
#else
#  define XXH_VECTOR XXH_SCALAR
#endif
unsigned long long XXH64(const void *input, unsigned long len, unsigned long long seed);
#endif
