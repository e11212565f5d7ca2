#include "../xxhash.h"
int main(void) { return 0; }
