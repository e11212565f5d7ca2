#ifndef ASMCRC_H
#define ASMCRC_H

#include <stddef.h>
#include <stdint.h>

/* asmcrc_update adds len bytes of buf to a CRC-32 (IEEE) and returns the new value. */
uint32_t asmcrc_update(uint32_t crc, const unsigned char *buf, size_t len);

/* asmcrc_update_clmul is the same with x86-64 carry-less multiplication; it exists
   only in builds for x86-64 (see x86/crc_clmul.S). */
uint32_t asmcrc_update_clmul(uint32_t crc, const unsigned char *buf, size_t len);

#endif
