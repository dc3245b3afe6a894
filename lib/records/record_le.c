/* struct hw_record <-> its little-endian file / stream image, field by field from HW_RECORD_FIELDS (record.h)
 * at the list's offsets, so the format does not depend on the host's byte order or padding (pad bytes zero). */
#include <string.h>

#include "hopwatch/record_file.h"
#include "sinks_internal.h"

/* One store / load per field (sinks_internal.h); the list expands into straight-line code. */
#define PUT(r, name, type, le, valid, ch, kind, jpos) HW_LE_PUT_##type(out + (le), r->name);
#define GET(r, name, type, le, valid, ch, kind, jpos) HW_LE_GET_##type(in + (le), r->name);

/* restrict: the image and the record do not overlap, so the compiler may merge and reorder the field
 * copies (the list is in column order, not offset order). */
void hw_record_to_le(const struct hw_record *restrict r, uint8_t out[restrict HW_RECORD_SIZE])
{
	HW_RECORD_FIELDS(PUT, r)
	memset(out + offsetof(struct hw_record, pad_), 0, sizeof(r->pad_));
}

void hw_record_from_le(const uint8_t in[restrict HW_RECORD_SIZE], struct hw_record *restrict r)
{
	HW_RECORD_FIELDS(GET, r)
	memset(r->pad_, 0, sizeof(r->pad_));
}
