/* Test helper: LLDP Ethernet frames written TLV by TLV from the standard's tables (see lldp_frames.h).
 * Deliberately shares no code with the parser it tests. */
#include <string.h>

#include "lldp_frames.h"

static size_t put_tlv(uint8_t *b, size_t o, unsigned type, size_t len, const void *v)
{
	b[o] = (uint8_t)(type << 1 | len >> 8);
	b[o + 1] = (uint8_t)len;
	memcpy(b + o + 2, v, len);
	return o + 2 + len;
}

size_t test_lldp_frame(const struct test_end *e, uint8_t *b)
{
	static const uint8_t hdr[14] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02, 0, 0, 0, 0, 0, 0x88, 0xcc};
	uint8_t v[64];
	size_t o = sizeof(hdr);
	memcpy(b, hdr, sizeof(hdr));
	b[11] = e->mac;
	memcpy(v, (uint8_t[]){4, 0x02, 0, 0, 0, 0, e->mac}, 7);
	o = put_tlv(b, o, 1, 7, v);
	v[0] = 5;
	memcpy(v + 1, e->port, strlen(e->port));
	o = put_tlv(b, o, 2, 1 + strlen(e->port), v);
	o = put_tlv(b, o, 3, 2, (uint8_t[]){(uint8_t)(e->ttl >> 8), (uint8_t)e->ttl});
	if (e->name)
		o = put_tlv(b, o, 5, strlen(e->name), e->name);
	if (e->caps)
		o = put_tlv(
		    b, o, 7, 4,
		    (uint8_t[]){(uint8_t)(e->caps >> 8), (uint8_t)e->caps, (uint8_t)(e->caps >> 8), (uint8_t)e->caps});
	if (e->max_frame)
		o = put_tlv(b, o, 127, 6,
		            (uint8_t[]){0x00, 0x12, 0x0f, 0x04, (uint8_t)(e->max_frame >> 8), (uint8_t)e->max_frame});
	if (e->pfc >= 0)
		o = put_tlv(b, o, 127, 6, (uint8_t[]){0x00, 0x80, 0xc2, 0x0b, 0x08, (uint8_t)e->pfc});
	return put_tlv(b, o, 0, 0, "");
}
