#include "../lib/expat.h"
int main(void) { return 0; }
