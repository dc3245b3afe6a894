/* JSON lines for per-hop records: the format of docs/records.md.
 * One writer for the collector's --json output, JSON sinks and the generator's truth files. */
#ifndef HOPWATCH_RECORD_JSON_H
#define HOPWATCH_RECORD_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "hopwatch/record.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest line hw_record_json() can produce, including the newline and the terminating NUL. */
#define HW_RECORD_JSON_MAX 1024

/* Format one record as a JSON object followed by '\n' into buf (at least HW_RECORD_JSON_MAX bytes).
 * Returns the number of bytes written, not counting the NUL. */
size_t hw_record_json(const struct hw_record *r, char *buf);

/* Text of a 16-byte address: dotted quad when IPv4-mapped, RFC 5952 IPv6 otherwise.
 * buf must hold 46 bytes. */
const char *hw_ip_text(const uint8_t ip[16], char *buf);

#ifdef __cplusplus
}
#endif
#endif
