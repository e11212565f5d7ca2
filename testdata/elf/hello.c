int puts(const char *);
int main(void) { puts("hi"); return 0; }
