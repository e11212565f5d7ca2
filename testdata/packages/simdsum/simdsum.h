#ifndef SIMDSUM_H
#define SIMDSUM_H
#include <stddef.h>

/* simdsum_version returns the library's version. */
const char *simdsum_version(void);

/* simdsum_add returns the sum of n floats. */
float simdsum_add(const float *v, size_t n);

/* simdsum_dot returns the dot product of two vectors of n floats. */
float simdsum_dot(const float *a, const float *b, size_t n);

#endif
