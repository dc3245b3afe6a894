/* Binary record files: a small versioned header, then the records, compact (version 2: groups per report)
 * or as fixed-size little-endian struct hw_record images (version 1).  A writer with size/time rotation and
 * atomic rename, and a reader of both versions that refuses files it does not understand. */
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
 *   offset 8  u16 format version: 2 (HW_RECORD_FILE_VERSION, compact) or 1 (HW_RECORD_FILE_VERSION_FIXED)
 *   offset 10 u16 record size in bytes (HW_RECORD_SIZE; in version 2 the size of a decoded record)
 *   offset 12 u32 header size in bytes (64)
 *   offset 16 u64 creation time, ns since the epoch
 *   offset 24 u32 record layout version (HW_RECORD_LAYOUT_VERSION)
 *   offset 28 36 bytes reserved, zero
 * Version 1 (fixed): then records, each the little-endian image of struct hw_record: every field at its
 *   offset in HW_RECORD_FIELDS (record.h, the `le` column, which is the struct offset), 8/4/2/1 bytes for
 *   u64/u32/u16/u8, 16 bytes in order for an address; bytes 133..135 are padding, zero.  The file length
 *   minus the header is a whole number of records.
 * Version 2 (compact, lib/records/record_compact.c; docs/records.md has the byte layout): then groups, one
 *   per run of consecutive records that share every per-report field (at most 255 records):
 *     u8 count (1..255), varint mask of the per-report fields written, those fields;
 *     then per record: varint mask of the hop's own fields written, those fields.
 *   A field is written only when it differs from the record before it in the file (the first group of a
 *   file is coded against an all-zero record); varints are LEB128; u8 1 byte, u16/u32 a varint, u64
 *   timestamps a varint of the zigzag-coded difference, flow_hash 8 bytes, addresses 16.  Padding reads
 *   back zero.  The file ends after a whole group. */
#define HW_RECORD_FILE_MAGIC "HWREC\0\0\1"
#define HW_RECORD_FILE_VERSION 2
#define HW_RECORD_FILE_VERSION_FIXED 1
#define HW_RECORD_LAYOUT_VERSION 1
#define HW_RECORD_FILE_HEADER 64

struct hw_record_writer;

/* How a writer encodes records: compact (version 2, the default) or fixed-size images (version 1, which
 * hopwatch releases before the compact encoding read). */
enum hw_record_encoding {
	HW_RECORD_ENC_COMPACT = 0,
	HW_RECORD_ENC_FIXED = 1,
};

struct hw_record_writer_opts {
	const char *dir;       /* directory for the files */
	const char *prefix;    /* file name prefix, e.g. "records" */
	uint64_t rotate_bytes; /* start a new file past this size (0 = never) */
	uint64_t rotate_ns;    /* start a new file after this long (0 = never) */
	enum hw_record_encoding encoding;
};

/* Open a writer: records go to DIR/.PREFIX-<time>.hwr.tmp and are renamed to PREFIX-<time>.hwr
 * (atomically, after fsync) when the file is closed or rotated.  <time> is the UTC wall-clock time
 * the file was created, YYYYmmddTHHMMSS.nnnnnnnnnZ, unique and increasing within a writer, so names
 * sort in time order; it is also the header's creation time.  A file is created by the first write
 * after open, rotation or reopen, so no empty files appear.  NULL with a message in err on failure
 * (the directory must exist and be writable). */
struct hw_record_writer *hw_record_writer_open(const struct hw_record_writer_opts *o, char *err, size_t errlen);
/* Append n records (buffered, 1 MiB).  now_ns drives time rotation: a file is finished once now_ns is
 * rotate_ns past the now_ns of the write that created it (n may be 0 just to let that happen); a
 * file is finished before a record (compact: a group of records) that would take it past rotate_bytes (a
 * file always holds at least one).  0, or -1 with err set; after a failed create, write(2), fsync or rename the
 * current file is removed, its records and those of this call not yet taken are counted as lost,
 * and the next write starts a new file: every record given is counted written or lost. */
int hw_record_writer_write(struct hw_record_writer *w, const struct hw_record *r, size_t n, uint64_t now_ns, char *err,
                           size_t errlen);
/* Close the current file (rename into place) and start a new one on the next write: SIGHUP. */
int hw_record_writer_reopen(struct hw_record_writer *w, char *err, size_t errlen);
/* Flush, rename into place and free.  0, or -1 with err set. */
int hw_record_writer_close(struct hw_record_writer *w, char *err, size_t errlen);
/* Records written so far, over all files (finished and current, not the lost ones). */
uint64_t hw_record_writer_count(const struct hw_record_writer *w);
/* Records in files abandoned after an I/O error. */
uint64_t hw_record_writer_lost(const struct hw_record_writer *w);
/* Files finished and renamed into place. */
uint64_t hw_record_writer_files(const struct hw_record_writer *w);

struct hw_record_reader;
/* Open a record file of either version; refuses (NULL, message naming the file and the problem in err) a
 * file with another magic, a newer format or layout version, another record size, or (version 1) a torn
 * last record.  A compact file's torn last group or malformed group is an error of the read that meets it. */
struct hw_record_reader *hw_record_reader_open(const char *path, char *err, size_t errlen);
/* Read up to n records; returns the number read (0 at the end), or -1 with err set (e.g. the file
 * shrank after it was opened). */
long hw_record_reader_read(struct hw_record_reader *r, struct hw_record *out, size_t n, char *err, size_t errlen);
void hw_record_reader_close(struct hw_record_reader *r);

/* Convert one record to / from its little-endian file image (HW_RECORD_SIZE bytes). */
void hw_record_to_le(const struct hw_record *r, uint8_t out[HW_RECORD_SIZE]);
void hw_record_from_le(const uint8_t in[HW_RECORD_SIZE], struct hw_record *r);

#ifdef __cplusplus
}
#endif
#endif
