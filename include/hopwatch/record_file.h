/* Binary record files: a small versioned header, then fixed-size little-endian struct hw_record
 * images.  A writer with size/time rotation and atomic rename, and a reader that refuses files it
 * does not understand. */
#ifndef HOPWATCH_RECORD_FILE_H
#define HOPWATCH_RECORD_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"

#ifdef __cplusplus
extern "C" {
#endif

/* File layout (all little-endian):
 *   offset 0  magic "HWREC\0\0\1" (8 bytes)
 *   offset 8  u16 format version (HW_RECORD_FILE_VERSION)
 *   offset 10 u16 record size in bytes (HW_RECORD_SIZE)
 *   offset 12 u32 header size in bytes (64)
 *   offset 16 u64 creation time, ns since the epoch
 *   offset 24 u32 record layout version (HW_RECORD_LAYOUT_VERSION)
 *   offset 28 36 bytes reserved, zero
 *   then records, each the little-endian image of struct hw_record (field order of record.h). */
#define HW_RECORD_FILE_MAGIC "HWREC\0\0\1"
#define HW_RECORD_FILE_VERSION 1
#define HW_RECORD_LAYOUT_VERSION 1
#define HW_RECORD_FILE_HEADER 64

struct hw_record_writer;

struct hw_record_writer_opts {
	const char *dir;	    /* directory for the files */
	const char *prefix;	    /* file name prefix, e.g. "records" */
	uint64_t rotate_bytes;	    /* start a new file past this size (0 = never) */
	uint64_t rotate_ns;	    /* start a new file after this long (0 = never) */
};

/* Open a writer: records go to DIR/.PREFIX-<time>.hwr.tmp and are renamed to PREFIX-<time>.hwr
 * (atomically) when the file is closed or rotated.  NULL with a message in err on failure. */
struct hw_record_writer *hw_record_writer_open(const struct hw_record_writer_opts *o, char *err, size_t errlen);
/* Append n records (buffered).  now_ns drives time rotation.  0, or -1 with err set. */
int hw_record_writer_write(struct hw_record_writer *w, const struct hw_record *r, size_t n, uint64_t now_ns, char *err,
			   size_t errlen);
/* Close the current file (rename into place) and start a new one on the next write: SIGHUP. */
int hw_record_writer_reopen(struct hw_record_writer *w, char *err, size_t errlen);
/* Flush, rename into place and free.  0, or -1 with err set. */
int hw_record_writer_close(struct hw_record_writer *w, char *err, size_t errlen);
/* Records written so far, over all files. */
uint64_t hw_record_writer_count(const struct hw_record_writer *w);

struct hw_record_reader;
/* Open a record file; refuses (NULL, message naming the file and the problem in err) a file with
 * another magic, a newer format or layout version, another record size, or a torn last record. */
struct hw_record_reader *hw_record_reader_open(const char *path, char *err, size_t errlen);
/* Read up to n records; returns the number read (0 at the end), or -1 with err set. */
long hw_record_reader_read(struct hw_record_reader *r, struct hw_record *out, size_t n, char *err, size_t errlen);
void hw_record_reader_close(struct hw_record_reader *r);

/* Convert one record to / from its little-endian file image (HW_RECORD_SIZE bytes). */
void hw_record_to_le(const struct hw_record *r, uint8_t out[HW_RECORD_SIZE]);
void hw_record_from_le(const uint8_t in[HW_RECORD_SIZE], struct hw_record *r);

#ifdef __cplusplus
}
#endif
#endif
