static inline unsigned long long ticks(void) {
    unsigned int lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((unsigned long long)hi << 32) | lo;
}
static inline void barrier(void) { __asm__ volatile("" ::: "memory"); }
unsigned long long now(void) { barrier(); return ticks(); }
