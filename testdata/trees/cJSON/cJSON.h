#ifndef cJSON__h
#define cJSON__h
typedef struct cJSON cJSON;
cJSON *cJSON_Parse(const char *value);
#endif
