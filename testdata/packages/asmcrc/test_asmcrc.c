#include <stdio.h>
#include <string.h>
#include "asmcrc.h"

int main(void)
{
	const char *s = "123456789";
	uint32_t got = asmcrc_update(0, (const unsigned char *)s, strlen(s));
	int ok = got == 0xCBF43926u;
	printf("%s 1 - crc32 of the check string\n", ok ? "ok" : "not ok");
	printf("1..1\n");
	return ok ? 0 : 1;
}
