#ifndef VECSUM_H
#define VECSUM_H
#include <stddef.h>

/* vecsum_add returns the sum of n values. */
long vecsum_add(const long *values, size_t n);

#endif
