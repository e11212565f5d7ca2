#include "cJSON.h"
cJSON *cJSON_Parse(const char *value) { (void)value; return 0; }
