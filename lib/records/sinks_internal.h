/* Helpers shared by the record file and stream sinks: little-endian loads and stores and the stream
 * frame header (error text: errf.h, the clock: clock.h, addresses: sock_addr.h, all in lib/common). */
#ifndef HOPWATCH_SINKS_INTERNAL_H
#define HOPWATCH_SINKS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "errf.h"
#include "hopwatch/stream.h"
#include "sock_addr.h"

static inline void hw_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* Byte stores written out (no loop), which the compiler merges into one store on a little-endian host. */
static inline void hw_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void hw_put_le64(uint8_t *p, uint64_t v)
{
	hw_put_le32(p, (uint32_t)v);
	hw_put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t hw_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t hw_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t hw_get_le64(const uint8_t *p)
{
	return (uint64_t)hw_get_le32(p) | (uint64_t)hw_get_le32(p + 4) << 32;
}

/* Store / load one record field by its HW_RECORD_FIELDS type (record.h), little-endian; an address
 * is its 16 bytes in order.  The LE image and RowBinary expand the list with these. */
#define HW_LE_PUT_u8(p, v) (*(p) = (v))
#define HW_LE_PUT_u16(p, v) hw_put_le16((p), (v))
#define HW_LE_PUT_u32(p, v) hw_put_le32((p), (v))
#define HW_LE_PUT_u64(p, v) hw_put_le64((p), (v))
#define HW_LE_PUT_ip16(p, v) memcpy((p), (v), 16)
#define HW_LE_GET_u8(p, v) ((v) = *(p))
#define HW_LE_GET_u16(p, v) ((v) = hw_get_le16(p))
#define HW_LE_GET_u32(p, v) ((v) = hw_get_le32(p))
#define HW_LE_GET_u64(p, v) ((v) = hw_get_le64(p))
#define HW_LE_GET_ip16(p, v) memcpy((v), (p), 16)

/* Stream frame header (stream.h), decoded. */
struct hw_frame_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t rec_size;
	uint32_t count;
	uint32_t reserved;
	uint64_t seq;
	uint64_t dropped;
};
void hw_frame_hdr_put(uint8_t out[32], uint16_t version, uint32_t count, uint64_t seq, uint64_t dropped);
/* Frame tags (stream.h: shared-key authentication): HMAC-SHA256(key, challenge || frame[0 .. len)).
 * hw_frame_mac_tag returns 0, or -1 (tag zeroed, so a check fails closed). */
struct hw_frame_mac;
struct hw_frame_mac *hw_frame_mac_new(const uint8_t *key, size_t len);
int hw_frame_mac_tag(const struct hw_frame_mac *m, const uint8_t challenge[HW_STREAM_CHALLENGE], const uint8_t *frame,
                     size_t len, uint8_t tag[HW_STREAM_TAG]);
void hw_frame_mac_free(struct hw_frame_mac *m);
void hw_frame_hdr_get(const uint8_t in[32], struct hw_frame_hdr *h);

#endif
