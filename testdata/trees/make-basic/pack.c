int pack(void) { return 0; }
