#ifndef Expat_INCLUDED
#define Expat_INCLUDED 1
typedef struct XML_ParserStruct *XML_Parser;
#endif
