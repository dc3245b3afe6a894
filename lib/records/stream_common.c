/* What the stream sender and listener share: the frame header codec (the address parser they use
 * is lib/common/sock_addr.c). */

#include "hopwatch/stream.h"
#include "sinks_internal.h"

void hw_frame_hdr_put(uint8_t out[32], uint32_t count, uint64_t seq, uint64_t dropped)
{
	hw_put_le32(out, HW_STREAM_MAGIC);
	hw_put_le16(out + 4, HW_STREAM_VERSION);
	hw_put_le16(out + 6, HW_RECORD_SIZE);
	hw_put_le32(out + 8, count);
	hw_put_le32(out + 12, 0);
	hw_put_le64(out + 16, seq);
	hw_put_le64(out + 24, dropped);
}

void hw_frame_hdr_get(const uint8_t in[32], struct hw_frame_hdr *h)
{
	h->magic = hw_get_le32(in);
	h->version = hw_get_le16(in + 4);
	h->rec_size = hw_get_le16(in + 6);
	h->count = hw_get_le32(in + 8);
	h->reserved = hw_get_le32(in + 12);
	h->seq = hw_get_le64(in + 16);
	h->dropped = hw_get_le64(in + 24);
}
