/* The classic pcap file format read straight from memory (a buffer of the file): header check and record walk.
 * Frames are handed on where they lie, with the timestamps and lengths libpcap 1.10 would give. */
#ifndef HOPWATCH_PCAP_FILE_H
#define HOPWATCH_PCAP_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/pcap_input.h"

/* The file header of a classic pcap file, 24 bytes, and each record's header, 16 bytes. */
#define HW_PCAP_FILE_HEADER 24u
#define HW_PCAP_RECORD_HEADER 16u
/* The largest caplen libpcap accepts for Ethernet (MAXIMUM_SNAPLEN); also the snaplen used when the
 * file's own is 0 or larger. */
#define HW_PCAP_MAX_CAPLEN 262144u

/* What a file header says, once hw_pcap_file_header has accepted it. */
struct hw_pcap_file_format {
	int swapped;      /* written on a host of the other byte order */
	int nanoseconds;  /* the nanosecond magic; else microseconds, scaled up */
	uint32_t snaplen; /* adjusted as libpcap does: 0 or > HW_PCAP_MAX_CAPLEN become HW_PCAP_MAX_CAPLEN */
};

/* Whether buf (len bytes, the start of a file) is a classic pcap file the direct reader walks: one of the
 * four magics (micro/nanosecond, either byte order), version 2.4, link type 1 (Ethernet, no FCS bits).
 * 1 and *f filled, or 0: anything else (pcapng, other versions or link types, a short or foreign file)
 * is left to libpcap, which reads it or says what is wrong with it. */
int hw_pcap_file_header(const uint8_t *buf, size_t len, struct hw_pcap_file_format *f);

/* Why a walk ended (hw_pcap_file_walk); the names are hw_pcap_file_end_name's. */
enum hw_pcap_file_end {
	HW_PCAP_FILE_EOF,               /* "end": the last record ended where the file does */
	HW_PCAP_FILE_STOPPED,           /* "stopped": *stop became nonzero */
	HW_PCAP_FILE_SHORT_HEADER,      /* "truncated_record_header": 1-15 bytes after the last whole record */
	HW_PCAP_FILE_SHORT_DATA,        /* "truncated_record": caplen runs past the end of the file */
	HW_PCAP_FILE_CAPLEN_OVER_LIMIT, /* "caplen_over_limit": caplen > HW_PCAP_MAX_CAPLEN (a damaged file) */
};

const char *hw_pcap_file_end_name(enum hw_pcap_file_end end);

/* How a walk went. */
struct hw_pcap_file_walk {
	enum hw_pcap_file_end end;
	uint64_t frames; /* handed to fn */
	uint64_t cut;    /* frames whose caplen was over the snaplen (but within the limit): handed on cut to
	                  * the snaplen, the rest skipped, as libpcap does */
	uint64_t offset; /* where the walk ended: the file's length, or the start of the record it stopped at
	                  * (for STOPPED: just after the last frame handed on) */
	uint32_t caplen; /* the caplen of the record it stopped at (SHORT_DATA, CAPLEN_OVER_LIMIT) */
};

/* Walk the records of a whole classic pcap file in buf (its header included, checked by
 * hw_pcap_file_header into f) and call fn for each frame, pointing into buf: no copy.  Every record
 * header is checked against the bytes left before it is read; nothing past buf + len is touched.
 * Stops at the end, at the first bad record (*w says which and where) or when *stop (may be NULL)
 * becomes nonzero after a frame. */
void hw_pcap_file_walk(const uint8_t *buf, size_t len, const struct hw_pcap_file_format *f, hw_frame_fn fn, void *arg,
                       volatile int *stop, struct hw_pcap_file_walk *w);

/* The same walk in steps, for a reader that holds part of the file at a time: hw_pcap_file_walk_init, then
 * hw_pcap_file_walk_on over what it holds, which walks on from w->offset to the end of buf.  While
 * hw_pcap_file_walk_more(w) says the walk stopped only because buf ended there, the reader calls it again
 * over a buffer holding more of the file, with w->offset where that record now starts (nothing before it
 * is read again); else the walk has ended and w->end says why. */
void hw_pcap_file_walk_init(struct hw_pcap_file_walk *w);
void hw_pcap_file_walk_on(const uint8_t *buf, size_t len, const struct hw_pcap_file_format *f, hw_frame_fn fn,
                          void *arg, volatile int *stop, struct hw_pcap_file_walk *w);
static inline int hw_pcap_file_walk_more(const struct hw_pcap_file_walk *w)
{
	return w->end == HW_PCAP_FILE_EOF || w->end == HW_PCAP_FILE_SHORT_HEADER || w->end == HW_PCAP_FILE_SHORT_DATA;
}

#endif
