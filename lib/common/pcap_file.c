/* The classic pcap file format walked in memory: the 24-byte file header, then 16-byte record headers
 * each followed by caplen bytes; what libpcap 1.10's savefile reader accepts, refuses and cuts. */
#include <stdint.h>
#include <string.h>

#include "hopwatch/pcap_file.h"

#define MAGIC_USEC 0xa1b2c3d4u
#define MAGIC_NSEC 0xa1b23c4du
#define LINKTYPE_ETHERNET 1u

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline __attribute__((always_inline)) uint32_t get32(const uint8_t *p, int swapped)
{
	return swapped ? __builtin_bswap32(le32(p)) : le32(p);
}

int hw_pcap_file_header(const uint8_t *buf, size_t len, struct hw_pcap_file_format *f)
{
	if (len < HW_PCAP_FILE_HEADER)
		return 0;
	/* The magic as written; a file from a host of the other byte order reads byte-swapped.  The fields
	 * are in the writer's order, which this reader assumes is little- or big-endian as the magic says. */
	uint32_t m = le32(buf);
	int swapped = m == __builtin_bswap32(MAGIC_USEC) || m == __builtin_bswap32(MAGIC_NSEC);
	if (swapped)
		m = __builtin_bswap32(m);
	if (m != MAGIC_USEC && m != MAGIC_NSEC)
		return 0;
	uint16_t major = le16(buf + 4), minor = le16(buf + 6);
	if (swapped) {
		major = __builtin_bswap16(major);
		minor = __builtin_bswap16(minor);
	}
	/* 2.4 only: libpcap reads the caplen and len of 2.3 and older files as possibly exchanged */
	if (major != 2 || minor != 4 || get32(buf + 20, swapped) != LINKTYPE_ETHERNET)
		return 0;
	uint32_t snaplen = get32(buf + 16, swapped);
	f->swapped = swapped;
	f->nanoseconds = m == MAGIC_NSEC;
	f->snaplen = snaplen == 0 || snaplen > HW_PCAP_MAX_CAPLEN ? HW_PCAP_MAX_CAPLEN : snaplen;
	return 1;
}

const char *hw_pcap_file_end_name(enum hw_pcap_file_end end)
{
	switch (end) {
	case HW_PCAP_FILE_EOF: return "end";
	case HW_PCAP_FILE_STOPPED: return "stopped";
	case HW_PCAP_FILE_SHORT_HEADER: return "truncated_record_header";
	case HW_PCAP_FILE_SHORT_DATA: return "truncated_record";
	case HW_PCAP_FILE_CAPLEN_OVER_LIMIT: return "caplen_over_limit";
	}
	return "unknown";
}

void hw_pcap_file_walk_init(struct hw_pcap_file_walk *w)
{
	memset(w, 0, sizeof(*w));
	w->offset = HW_PCAP_FILE_HEADER;
}

void hw_pcap_file_walk(const uint8_t *buf, size_t len, const struct hw_pcap_file_format *f, hw_frame_fn fn, void *arg,
                       volatile int *stop, struct hw_pcap_file_walk *w)
{
	hw_pcap_file_walk_init(w);
	hw_pcap_file_walk_on(buf, len, f, fn, arg, stop, w);
}

void hw_pcap_file_walk_on(const uint8_t *buf, size_t len, const struct hw_pcap_file_format *f, hw_frame_fn fn,
                          void *arg, volatile int *stop, struct hw_pcap_file_walk *w)
{
	const int swapped = f->swapped;
	const uint32_t snaplen = f->snaplen;
	size_t off = (size_t)w->offset;
	if (len < off) { /* a short file (hw_pcap_file_header refuses it) or a bad offset: never read before a check */
		w->end = HW_PCAP_FILE_SHORT_HEADER;
		w->offset = len;
		return;
	}
	for (;;) {
		size_t left = len - off;
		if (left == 0) {
			w->end = HW_PCAP_FILE_EOF;
			break;
		}
		if (left < HW_PCAP_RECORD_HEADER) {
			w->end = HW_PCAP_FILE_SHORT_HEADER;
			break;
		}
		const uint8_t *h = buf + off;
		uint32_t caplen = get32(h + 8, swapped);
		if (caplen > HW_PCAP_MAX_CAPLEN) {
			w->end = HW_PCAP_FILE_CAPLEN_OVER_LIMIT;
			w->caplen = caplen;
			break;
		}
		/* caplen <= 2^18 and left >= 16: no overflow */
		if (caplen > left - HW_PCAP_RECORD_HEADER) {
			w->end = HW_PCAP_FILE_SHORT_DATA;
			w->caplen = caplen;
			break;
		}
		/* libpcap 1.10 copies the two 32-bit time fields into time_t and suseconds_t sign-extended as
		 * written, but zero-extended when it swaps them (its byte swap works on unsigned numbers); it
		 * scales microseconds up by 1000 in that 64-bit signed type, and the front end adds seconds * 1e9
		 * and the fraction as unsigned 64-bit numbers.  The same arithmetic here, odd values included. */
		uint32_t raw_sec = get32(h, swapped), raw_frac = get32(h + 4, swapped);
		int64_t sec = swapped ? (int64_t)raw_sec : (int64_t)(int32_t)raw_sec;
		int64_t frac = swapped ? (int64_t)raw_frac : (int64_t)(int32_t)raw_frac;
		if (!f->nanoseconds)
			frac *= 1000;
		uint64_t t = (uint64_t)sec * 1000000000ull + (uint64_t)frac;
		uint32_t hand = caplen;
		if (caplen > snaplen) { /* a writer that did not cut at its own snaplen: libpcap cuts */
			hand = snaplen;
			w->cut++;
		}
		fn(arg, h + HW_PCAP_RECORD_HEADER, hand, t);
		w->frames++;
		off += HW_PCAP_RECORD_HEADER + caplen;
		if (stop && *stop) {
			w->end = HW_PCAP_FILE_STOPPED;
			break;
		}
	}
	w->offset = off;
}
