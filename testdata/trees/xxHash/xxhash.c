#define XXH_IMPLEMENTATION
#include "xxhash.h"
