#include "asmcrc.h"

uint32_t asmcrc_update(uint32_t crc, const unsigned char *buf, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *buf++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1u));
	}
	return ~crc;
}
