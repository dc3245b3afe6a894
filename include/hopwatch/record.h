/* The per-hop record: the contract between collector, analyzer and storage.
 * One record per hop per telemetry report; field names match JSON keys and docs/records.md. */
#ifndef HOPWATCH_RECORD_H
#define HOPWATCH_RECORD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Report format the hop came from (JSON "format"). */
enum hw_format {
	HW_FORMAT_NONE = 0,
	HW_FORMAT_TR05 = 1, /* Telemetry Report v0.5 (fabric-tna / INT-XD postcards), "tr0.5" */
	HW_FORMAT_TR10 = 2, /* Telemetry Report v1.0, "tr1.0" */
	HW_FORMAT_TR20 = 3, /* Telemetry Report v2.0, "tr2.0" */
	HW_FORMAT_INT = 4,  /* bare INT-MD data packet seen by the collector, "int" */
};

/* Version of the embedded INT-MD stack a hop came from (JSON "int_version"). */
enum hw_int_version {
	HW_INT_NONE = 0,
	HW_INT_V05 = 1, /* "0.5" */
	HW_INT_V10 = 2, /* "1.0" */
	HW_INT_V21 = 3, /* "2.1" (v2.0 and v2.1 share the wire format) */
};

/* report_flags bits (JSON: array of these names). */
enum hw_report_flag {
	HW_RF_DROPPED = 1u << 0,         /* "dropped": D bit */
	HW_RF_CONGESTED_QUEUE = 1u << 1, /* "congested_queue": Q bit */
	HW_RF_TRACKED_FLOW = 1u << 2,    /* "tracked_flow": F bit */
	HW_RF_INTERMEDIATE = 1u << 3,    /* "intermediate": I bit (TR v2.0) */
	HW_RF_POSTCARD = 1u << 4,        /* "postcard": the report carried no embedded INT stack */
	HW_RF_INNER_TRUNCATED = 1u << 5, /* "inner_truncated": the report's copy of the packet ends inside its
	                                  * L2/L3/L4 headers; the flow keys that were present are kept */
};

/* egress_port of a hop that chose no egress port: the wire's 16-bit L1 egress port all ones (0xFFFF) with
 * an ingress port (a drop before forwarding, p4/README.md).  Not a port: L1 ports are 16 bits on the wire,
 * so no real port has this number.  The collector's queue table also uses it for "the hop has no ports". */
#define HW_PORT_NONE UINT32_MAX

/* valid bits: which optional fields of a record are present.  Fields not listed here
 * (time_ns, report_*, format, hop_index, path_len, node_id) are always present. */
enum hw_valid {
	HW_V_PORTS = 1u << 0,       /* ingress_port, egress_port (L1; egress_port may be HW_PORT_NONE) */
	HW_V_HOP_LATENCY = 1u << 1, /* hop_latency */
	HW_V_QUEUE = 1u << 2,       /* queue_id, queue_occupancy */
	HW_V_INGRESS_TS = 1u << 3,  /* ingress_ts */
	HW_V_EGRESS_TS = 1u << 4,   /* egress_ts */
	HW_V_L2_PORTS = 1u << 5,    /* l2_ingress_port, l2_egress_port */
	HW_V_TX_UTIL = 1u << 6,     /* egress_tx_util */
	HW_V_BUFFER = 1u << 7,      /* buffer_id, buffer_occupancy */
	HW_V_DROP = 1u << 8,        /* drop_reason (and queue_id of the dropped packet) */
	HW_V_FLOW = 1u << 9,        /* src_ip, dst_ip, ip_proto, src_port, dst_port, flow_hash */
	HW_V_TCLASS = 1u << 10,     /* dscp, ecn */
	HW_V_ROCE = 1u << 11,       /* roce_opcode, roce_dest_qp */
};

/* One hop of one report.  Fixed size, natural alignment, no pointers: the binary record
 * file stores exactly these bytes in little-endian order (see record_file.h). */
struct hw_record {
	uint64_t time_ns;    /* collector receive time (capture time for files), ns since epoch */
	uint64_t ingress_ts; /* device units */
	uint64_t egress_ts;  /* device units */
	uint64_t flow_hash;  /* stable hash of the inner 5-tuple (hw_flow_hash) */

	uint32_t valid;           /* enum hw_valid bits */
	uint32_t report_node;     /* node id of the report sender */
	uint32_t report_seq;      /* report sequence number (22 bits in TR v2.0) */
	uint32_t node_id;         /* switch id of this hop */
	uint32_t ingress_port;    /* L1 ingress port */
	uint32_t egress_port;     /* L1 egress port */
	uint32_t l2_ingress_port; /* L2 (logical) ingress interface */
	uint32_t l2_egress_port;  /* L2 (logical) egress interface */
	uint32_t hop_latency;     /* device units (usually ns) */
	uint32_t queue_occupancy; /* device units (cells or bytes), 24 bits on the wire */
	uint32_t egress_tx_util;  /* device units */
	uint32_t buffer_occupancy;
	uint32_t roce_dest_qp; /* 24 bits */

	uint16_t src_port;
	uint16_t dst_port;
	uint8_t src_ip[16]; /* IPv6, or IPv4-mapped ::ffff:a.b.c.d */
	uint8_t dst_ip[16];

	uint8_t hw_id;        /* 6 bits */
	uint8_t report_flags; /* enum hw_report_flag bits */
	uint8_t format;       /* enum hw_format */
	uint8_t int_version;  /* enum hw_int_version; HW_INT_NONE for the report's own hop */
	uint8_t hop_index;    /* 0 = first hop from the source */
	uint8_t path_len;     /* hops in this report */
	uint8_t queue_id;
	uint8_t buffer_id;
	uint8_t drop_reason;
	uint8_t ip_proto;
	uint8_t dscp;
	uint8_t ecn;
	uint8_t roce_opcode; /* BTH opcode; 0x81 = CNP */
	uint8_t pad_[3];
};

#define HW_RECORD_SIZE 136u
_Static_assert(sizeof(struct hw_record) == HW_RECORD_SIZE, "hw_record layout is part of the file format");

/* The record's fields, one row each, in ClickHouse column order (deploy/clickhouse/schema.sql): every
 * codec (LE image, JSON writer and reader, RowBinary writer and reader) and the schema check
 * (tests/records) are generated from this list.  HW_RECORD_FIELDS(X, a) expands
 *   X(a, name, type, le, valid, ch, kind, jpos)
 * for each row, a being passed through untouched:
 *   name   the struct member, the JSON key and the ClickHouse column (the same everywhere);
 *   type   u8, u16, u32, u64 or ip16 (16 address bytes): the member's C type (hw_rec_<type>_t);
 *   le     byte offset in the little-endian image (record_file.h), which is the struct offset;
 *   valid  HW_V_* bits that make the field present (0 = always); several bits = present with any;
 *   ch     ClickHouse type in schema.sql;
 *   kind   how JSON spells it: UINT (integer), FLAGS (report_flags: array of names), FORMAT and
 *          INTVER (enum names; INTVER omitted for HW_INT_NONE), IP (address text), HEX (16 hex
 *          digits), VALID (not written: the keys present say it);
 *   jpos   the field's place among the JSON keys (docs/records.md), which differ from the column
 *          order only in the flow fields. */
/* clang-format off */
#define HW_RECORD_FIELDS(X, a) \
	X(a, time_ns,          u64,  0,   0,                       "UInt64",          UINT,   0) \
	X(a, report_node,      u32,  36,  0,                       "UInt32",          UINT,   1) \
	X(a, hw_id,            u8,   120, 0,                       "UInt8",           UINT,   2) \
	X(a, report_seq,       u32,  40,  0,                       "UInt32",          UINT,   3) \
	X(a, report_flags,     u8,   121, 0,                       "UInt8",           FLAGS,  4) \
	X(a, format,           u8,   122, 0,                       "Enum8",           FORMAT, 5) \
	X(a, int_version,      u8,   123, 0,                       "Enum8",           INTVER, 6) \
	X(a, valid,            u32,  32,  0,                       "UInt32",          VALID,  7) \
	X(a, hop_index,        u8,   124, 0,                       "UInt8",           UINT,   8) \
	X(a, path_len,         u8,   125, 0,                       "UInt8",           UINT,   9) \
	X(a, node_id,          u32,  44,  0,                       "UInt32",          UINT,   10) \
	X(a, ingress_port,     u32,  48,  HW_V_PORTS,              "UInt32",          UINT,   11) \
	X(a, egress_port,      u32,  52,  HW_V_PORTS,              "UInt32",          UINT,   12) \
	X(a, l2_ingress_port,  u32,  56,  HW_V_L2_PORTS,           "UInt32",          UINT,   13) \
	X(a, l2_egress_port,   u32,  60,  HW_V_L2_PORTS,           "UInt32",          UINT,   14) \
	X(a, hop_latency,      u32,  64,  HW_V_HOP_LATENCY,        "UInt32",          UINT,   15) \
	X(a, queue_id,         u8,   126, HW_V_QUEUE | HW_V_DROP,  "UInt8",           UINT,   16) \
	X(a, queue_occupancy,  u32,  68,  HW_V_QUEUE,              "UInt32",          UINT,   17) \
	X(a, ingress_ts,       u64,  8,   HW_V_INGRESS_TS,         "UInt64",          UINT,   18) \
	X(a, egress_ts,        u64,  16,  HW_V_EGRESS_TS,          "UInt64",          UINT,   19) \
	X(a, egress_tx_util,   u32,  72,  HW_V_TX_UTIL,            "UInt32",          UINT,   20) \
	X(a, buffer_id,        u8,   127, HW_V_BUFFER,             "UInt8",           UINT,   21) \
	X(a, buffer_occupancy, u32,  76,  HW_V_BUFFER,             "UInt32",          UINT,   22) \
	X(a, drop_reason,      u8,   128, HW_V_DROP,               "UInt8",           UINT,   23) \
	X(a, src_ip,           ip16, 88,  HW_V_FLOW,               "FixedString(16)", IP,     24) \
	X(a, dst_ip,           ip16, 104, HW_V_FLOW,               "FixedString(16)", IP,     25) \
	X(a, src_port,         u16,  84,  HW_V_FLOW,               "UInt16",          UINT,   27) \
	X(a, dst_port,         u16,  86,  HW_V_FLOW,               "UInt16",          UINT,   28) \
	X(a, ip_proto,         u8,   129, HW_V_FLOW,               "UInt8",           UINT,   26) \
	X(a, dscp,             u8,   130, HW_V_TCLASS,             "UInt8",           UINT,   30) \
	X(a, ecn,              u8,   131, HW_V_TCLASS,             "UInt8",           UINT,   31) \
	X(a, roce_opcode,      u8,   132, HW_V_ROCE,               "UInt8",           UINT,   32) \
	X(a, roce_dest_qp,     u32,  80,  HW_V_ROCE,               "UInt32",          UINT,   33) \
	X(a, flow_hash,        u64,  24,  HW_V_FLOW,               "UInt64",          HEX,    29)
/* clang-format on */
#define HW_RECORD_NFIELDS 34

typedef uint8_t hw_rec_u8_t;
typedef uint16_t hw_rec_u16_t;
typedef uint32_t hw_rec_u32_t;
typedef uint64_t hw_rec_u64_t;
typedef uint8_t hw_rec_ip16_t[16];

/* The list and the struct agree: each row's type and offset are the member's, the rows cover every
 * byte but the padding, and the JSON places are 0 .. HW_RECORD_NFIELDS - 1, each once (n distinct
 * powers of two below 2^n, and only those, add up to 2^n - 1). */
#define HW_REC_AGREE_(a, name, type, le, valid, ch, kind, jpos)                                                        \
	_Static_assert(offsetof(struct hw_record, name) == (le), "hw_record." #name ": offset differs from the list"); \
	_Static_assert(_Generic(&((struct hw_record *)0)->name, hw_rec_##type##_t * : 1, default : 0),                 \
	               "hw_record." #name ": type differs from the list");
HW_RECORD_FIELDS(HW_REC_AGREE_, _)
#undef HW_REC_AGREE_
#define HW_REC_SIZE_(a, name, type, le, valid, ch, kind, jpos) +sizeof(hw_rec_##type##_t)
#define HW_REC_JPOS_(a, name, type, le, valid, ch, kind, jpos) +(1ull << (jpos))
#define HW_REC_COUNT_(a, name, type, le, valid, ch, kind, jpos) +1
_Static_assert(0 HW_RECORD_FIELDS(HW_REC_SIZE_, _) + sizeof(((struct hw_record *)0)->pad_) == HW_RECORD_SIZE,
               "HW_RECORD_FIELDS must list every member of struct hw_record but pad_");
_Static_assert(0 HW_RECORD_FIELDS(HW_REC_COUNT_, _) == HW_RECORD_NFIELDS, "HW_RECORD_NFIELDS: rows of the list");
_Static_assert(0 HW_RECORD_FIELDS(HW_REC_JPOS_, _) == (1ull << HW_RECORD_NFIELDS) - 1,
               "HW_RECORD_FIELDS: jpos must number the JSON keys 0 .. HW_RECORD_NFIELDS - 1, each once");
#undef HW_REC_SIZE_
#undef HW_REC_JPOS_
#undef HW_REC_COUNT_

/* Names used at the edges (JSON, ClickHouse, docs). */
const char *hw_format_name(unsigned format);           /* "tr2.0", ...; "unknown" otherwise */
const char *hw_int_version_name(unsigned int_version); /* "2.1", ...; NULL for HW_INT_NONE */
const char *hw_report_flag_name(unsigned bit);         /* name of one HW_RF_* bit, NULL otherwise */

/* Stable 64-bit hash of a flow 5-tuple (addresses as 16-byte IPv6/v4-mapped). */
uint64_t hw_flow_hash(const uint8_t src_ip[16], const uint8_t dst_ip[16], uint8_t ip_proto, uint16_t src_port,
                      uint16_t dst_port);

#ifdef __cplusplus
}
#endif
#endif
