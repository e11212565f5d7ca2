#include <stdio.h>

#include "hello.h"

int hello_greeting(char *buf, size_t size, const char *name)
{
	if (name == NULL || name[0] == '\0')
		name = "world";
	return snprintf(buf, size, "Hello, %s!", name);
}

unsigned long hello_checksum(const char *s)
{
	unsigned long h = 2166136261UL;
	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h = (h * 16777619UL) & 0xffffffffUL;
	}
	return h;
}
