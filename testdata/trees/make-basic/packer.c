#include "pack.h"
int main(void) { return pack(); }
