#include <stdio.h>

#include "tick.h"

int main(void)
{
	unsigned long long a = tick_now();
	unsigned long long b = tick_now();
	printf("tick %s\n", b >= a ? "ok" : "went backwards");
	return b >= a ? 0 : 1;
}
