/* The table of wire header layouts (hw_layout_headers), built from the X-lists in wire_layout.h.
 * Tests compare it with the P4 header definitions in p4/. */
#include "hopwatch/wire_layout.h"

#define HW_X_FIELD(f, o, w) {#f, (o), (w)},
#define HW_X_FIELDS(name, LIST, bytes) static const struct hw_layout_field name##_fields[] = {LIST(HW_X_FIELD)};
HW_LAYOUT_HEADERS(HW_X_FIELDS)

#define HW_X_HEADER(name, LIST, bytes)                                                                                 \
	{#name, (bytes), (uint16_t)(sizeof(name##_fields) / sizeof(name##_fields[0])), name##_fields},
const struct hw_layout_header hw_layout_headers[] = {HW_LAYOUT_HEADERS(HW_X_HEADER){0, 0, 0, 0}};
