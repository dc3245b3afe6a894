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

/* valid bits: which optional fields of a record are present.  Fields not listed here
 * (time_ns, report_*, format, hop_index, path_len, node_id) are always present. */
enum hw_valid {
	HW_V_PORTS = 1u << 0,       /* ingress_port, egress_port (L1) */
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
