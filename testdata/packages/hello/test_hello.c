#include <stdio.h>
#include <string.h>

#include "hello.h"

static int failures;

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "FAIL: %s\n", what);
		failures++;
	}
}

int main(void)
{
	char buf[64];
	char small[6];

	expect(hello_greeting(buf, sizeof buf, "riscv") == 13, "greeting length");
	expect(strcmp(buf, "Hello, riscv!") == 0, "greeting text");
	hello_greeting(buf, sizeof buf, NULL);
	expect(strcmp(buf, "Hello, world!") == 0, "default name");
	expect(hello_greeting(small, sizeof small, "riscv") == 13, "truncated length");
	expect(strcmp(small, "Hello") == 0, "truncated text");
	expect(hello_checksum("") == 2166136261UL, "empty checksum");
	expect(hello_checksum("a") == 0xe40c292cUL, "checksum of a");
	if (failures == 0)
		printf("all tests passed\n");
	return failures == 0 ? 0 : 1;
}
