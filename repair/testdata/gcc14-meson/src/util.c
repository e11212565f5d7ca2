/* util.c: helpers written before prototypes were the rule */
#include <string.h>

int count_words(const char *s)
{
	int n = 0, in = 0;
	for (; *s; s++) {
		if (*s == ' ')
			in = 0;
		else if (!in) {
			in = 1;
			n++;
		}
	}
	return n;
}
