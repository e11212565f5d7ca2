#ifndef YAML_H
#define YAML_H
const char *yaml_get_version_string(void);
#endif
