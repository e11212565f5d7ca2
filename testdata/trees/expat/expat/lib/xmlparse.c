#include "expat.h"
