/* RowBinary rows of the per-hop record, in the column order of deploy/clickhouse/schema.sql (HW_RECORD_FIELDS,
 * record.h): what the ClickHouse sink inserts, what a replay reads back, and the columns the diagnose check
 * looks for in a table. */
#include <stdio.h>
#include <string.h>

#include "hopwatch/record_rowbinary.h"
#include "sinks_internal.h"

#define COLUMN_COMMA(a, name, type, le, valid, ch, kind, jpos) #name ","
#define COMMA_COLUMN(a, name, type, le, valid, ch, kind, jpos) "," #name
const char hw_ch_columns[] = HW_RECORD_FIELDS(COLUMN_COMMA, _) "report_pos";
static const char field_columns_[] = HW_RECORD_FIELDS(COMMA_COLUMN, _);
const char *const hw_ch_field_columns = field_columns_ + 1; /* past the first comma */
#undef COLUMN_COMMA
#undef COMMA_COLUMN

#define WIDTH(a, name, type, le, valid, ch, kind, jpos) +sizeof(hw_rec_##type##_t)
_Static_assert(0 HW_RECORD_FIELDS(WIDTH, _) == HW_CH_FIELD_ROW, "HW_CH_FIELD_ROW: the fields' widths");
_Static_assert(HW_CH_FIELD_ROW + 2 <= HW_CH_ROW_MAX, "HW_CH_ROW_MAX: a row with report_pos");
#undef WIDTH

/* One value by type (sinks_internal.h), the row's columns back to back. */
#define PUT(r, name, type, le, valid, ch, kind, jpos)                                                                  \
	HW_LE_PUT_##type(p, r->name);                                                                                  \
	p += sizeof(hw_rec_##type##_t);
#define GET(r, name, type, le, valid, ch, kind, jpos)                                                                  \
	HW_LE_GET_##type(p, r->name);                                                                                  \
	p += sizeof(hw_rec_##type##_t);

uint16_t hw_ch_report_pos(const struct hw_record *prev, uint16_t prev_pos, const struct hw_record *r)
{
	if (prev && prev->time_ns == r->time_ns && prev->report_node == r->report_node && prev->hw_id == r->hw_id &&
	    prev->report_seq == r->report_seq)
		return (uint16_t)(prev_pos + 1);
	return 0;
}

size_t hw_ch_rowbinary(const struct hw_record *recs, uint32_t n, uint16_t first_pos, uint8_t *out)
{
	uint8_t *p = out;
	uint16_t pos = first_pos;
	for (uint32_t i = 0; i < n; i++) {
		const struct hw_record *r = &recs[i];
		if (i)
			pos = hw_ch_report_pos(&recs[i - 1], pos, r);
		HW_RECORD_FIELDS(PUT, r) /* format, int_version: Enum8 of the enum value */
		hw_put_le16(p, pos);
		p += 2;
	}
	return (size_t)(p - out);
}

int hw_ch_row_decode(const uint8_t *row, struct hw_record *r, char *why, size_t whylen)
{
	const uint8_t *p = row;
	memset(r, 0, sizeof(*r));
	HW_RECORD_FIELDS(GET, r)
	if (r->format > HW_FORMAT_INT || r->int_version > HW_INT_V21 ||
	    r->report_flags >= (HW_RF_INNER_TRUNCATED << 1) || r->valid >= (HW_V_ROCE << 1) || r->hw_id >= 64 ||
	    r->dscp >= 64 || r->ecn >= 4) {
		snprintf(why, whylen, "not a hops row (format %u, int_version %u, report_flags %u, valid %u)",
		         r->format, r->int_version, r->report_flags, r->valid);
		return -1;
	}
	return 0;
}
