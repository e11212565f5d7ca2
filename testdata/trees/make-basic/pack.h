int pack(void);
