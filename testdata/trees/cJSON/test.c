#include "cJSON.h"
int main(void) { return cJSON_Parse("{}") != 0; }
