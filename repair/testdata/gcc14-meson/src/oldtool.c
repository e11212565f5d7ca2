/* oldtool.c: counts the words of its arguments. Like much C of its time it calls
 * its helper and libc's exit without a declaration in scope. */
#include <stdio.h>

int main(int argc, char **argv)
{
	int i, total = 0;
	for (i = 1; i < argc; i++)
		total += count_words(argv[i]);
	printf("%d\n", total);
	exit(0);
}
