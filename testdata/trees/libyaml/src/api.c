#include "yaml.h"
const char *yaml_get_version_string(void) { return "0.2.5"; }
