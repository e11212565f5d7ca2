#include "cJSON.h"
