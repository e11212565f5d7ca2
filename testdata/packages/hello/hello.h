/* hello: a tiny portable C library used by Atesor's quick start. */
#ifndef HELLO_H
#define HELLO_H

#include <stddef.h>

/* hello_greeting writes "Hello, <name>!" into buf (at most size bytes, always
 * terminated) and returns the length the full greeting needs, like snprintf. */
int hello_greeting(char *buf, size_t size, const char *name);

/* hello_checksum returns a 32-bit FNV-1a hash of the string. */
unsigned long hello_checksum(const char *s);

#endif
