#include <stddef.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
static void add4(int *d, const int *a) {
    __m128i x = _mm_loadu_si128((const __m128i *)a);
    _mm_storeu_si128((__m128i *)d, x);
}
#else
static void add4(int *d, const int *a) {
    for (size_t i = 0; i < 4; i++) d[i] = a[i];
}
#endif
void run(int *d, const int *a) { add4(d, a); }
