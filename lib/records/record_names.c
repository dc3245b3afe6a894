/* Names of record enums as they appear at the edges (JSON, metrics, docs).
 * Keep in step with docs/records.md. */
#include <stddef.h>

#include "hopwatch/record.h"

const char *hw_format_name(unsigned format)
{
	switch (format) {
	case HW_FORMAT_TR05: return "tr0.5";
	case HW_FORMAT_TR10: return "tr1.0";
	case HW_FORMAT_TR20: return "tr2.0";
	case HW_FORMAT_INT: return "int";
	default: return "unknown";
	}
}

const char *hw_int_version_name(unsigned v)
{
	switch (v) {
	case HW_INT_V05: return "0.5";
	case HW_INT_V10: return "1.0";
	case HW_INT_V21: return "2.1";
	default: return NULL;
	}
}

const char *hw_report_flag_name(unsigned bit)
{
	switch (bit) {
	case HW_RF_DROPPED: return "dropped";
	case HW_RF_CONGESTED_QUEUE: return "congested_queue";
	case HW_RF_TRACKED_FLOW: return "tracked_flow";
	case HW_RF_INTERMEDIATE: return "intermediate";
	case HW_RF_POSTCARD: return "postcard";
	case HW_RF_INNER_TRUNCATED: return "inner_truncated";
	default: return NULL;
	}
}
