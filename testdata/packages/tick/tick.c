#include <x86intrin.h>

#include "tick.h"

unsigned long long tick_now(void)
{
	return __rdtsc();
}
