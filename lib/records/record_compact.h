/* The compact record encoding of record files (format version 2, record_file.h): groups of records that
 * share their per-report fields, each field written only when it differs from the record before it. */
#ifndef HOPWATCH_RECORD_COMPACT_H
#define HOPWATCH_RECORD_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"

/* Records in one group at most (its count is one byte). */
#define HW_RC_GROUP_MAX 255u

/* Bytes one group of n records takes at most: the worst case of every field present at its widest. */
size_t hw_rc_group_bound(size_t n);

/* Encode the longest run of r[0 .. n) (n >= 1) that shares every per-report field, at most
 * HW_RC_GROUP_MAX records, as one group at out (room for hw_rc_group_bound(n) bytes), each field against
 * *prev (the record before r[0] in the file, all zero at the start of a file), which it then updates to
 * the group's last record.  Returns the bytes written; *taken is the number of records it holds. */
size_t hw_rc_encode_group(struct hw_record *prev, const struct hw_record *r, size_t n, uint8_t *out, size_t *taken);

/* Decode one group from in[0 .. len) into out (room for HW_RC_GROUP_MAX records) against *prev, which it
 * updates.  Returns the bytes the group took and sets *nrec, or 0 when in[0 .. len) ends inside the group
 * (more bytes needed), or -1 with a message (the byte offset off is named) when the group is malformed:
 * a count of 0, a field mask naming no field, an integer too long or too large for its field. */
long hw_rc_decode_group(struct hw_record *prev, const uint8_t *in, size_t len, struct hw_record *out, size_t *nrec,
                        uint64_t off, char *err, size_t errlen);

/* The same with a bounds check at every read, which hw_rc_decode_group uses near the end of its input (less
 * than hw_rc_group_bound of the group's count) and to name what is wrong in a malformed group; exposed for
 * tests and fuzzing, which compare the two. */
long hw_rc_decode_group_checked(struct hw_record *prev, const uint8_t *in, size_t len, struct hw_record *out,
                                size_t *nrec, uint64_t off, char *err, size_t errlen);

#endif
