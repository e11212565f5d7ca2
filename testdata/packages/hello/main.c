#include <stdio.h>

#include "hello.h"

int main(int argc, char **argv)
{
	char buf[256];
	hello_greeting(buf, sizeof buf, argc > 1 ? argv[1] : NULL);
	printf("%s\n", buf);
	printf("pointer size: %u bits\n", (unsigned)(sizeof(void *) * 8));
	return 0;
}
