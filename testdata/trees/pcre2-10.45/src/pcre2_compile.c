int pcre2_compile_8(void) { return 0; }
