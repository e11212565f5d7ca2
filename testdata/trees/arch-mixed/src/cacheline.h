#if defined(__x86_64__)
#define CACHE_LINE 64
#elif defined(__aarch64__)
#define CACHE_LINE 128
#else
#error "unknown architecture: define CACHE_LINE"
#endif
