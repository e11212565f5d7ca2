#include <emmintrin.h>
/* _mm_setzero_si128() in a comment is not code */
int zero(void) {
    __m128i z = _mm_setzero_si128();
    return _mm_cvtsi128_si32(z);
}
