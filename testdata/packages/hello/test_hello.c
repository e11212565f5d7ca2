/* The tests of hello. They report in TAP (Test Anything Protocol): a plan line, then
 * "ok N - what" or "not ok N - what" per test, so any TAP consumer can count them. */
#include <stdio.h>
#include <string.h>

#include "hello.h"

#define TESTS 8

static int failures;
static int number;

static void expect(int ok, const char *what)
{
	number++;
	printf("%sok %d - %s\n", ok ? "" : "not ", number, what);
	if (!ok)
		failures++;
}

int main(void)
{
	char buf[64];
	char small[6];
	FILE *program;

	printf("1..%d\n", TESTS);
	expect(hello_greeting(buf, sizeof buf, "riscv") == 13, "greeting length");
	expect(strcmp(buf, "Hello, riscv!") == 0, "greeting text");
	hello_greeting(buf, sizeof buf, NULL);
	expect(strcmp(buf, "Hello, world!") == 0, "default name");
	expect(hello_greeting(small, sizeof small, "riscv") == 13, "truncated length");
	expect(strcmp(small, "Hello") == 0, "truncated text");
	expect(hello_checksum("") == 2166136261UL, "empty checksum");
	expect(hello_checksum("a") == 0xe40c292cUL, "checksum of a");
	/* The program greets the world. */
	buf[0] = '\0';
	program = popen("./hello", "r");
	if (program != NULL) {
		if (fgets(buf, sizeof buf, program) == NULL)
			buf[0] = '\0';
		pclose(program);
	}
	expect(strstr(buf, "Hello, world!") != NULL, "the program greets the world");
	return failures == 0 ? 0 : 1;
}
