int ini_parse(void) { return 0; }
