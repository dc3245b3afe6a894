/* The wire parser: one received frame or UDP payload in, a report descriptor and per-hop
 * records out.  Pure C over a byte span: no allocation, no global state, no DPDK. */
#ifndef HOPWATCH_WIRE_H
#define HOPWATCH_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Outcome of parsing one packet.  HW_OK and HW_NOT_REPORT are not errors; every other value
 * names one reason a packet was rejected.  X(enum, name, message). */
#define HW_RESULT_LIST(X)                                                                                              \
	X(HW_OK, "ok", "parsed")                                                                                       \
	X(HW_NOT_REPORT, "not_report", "not a telemetry report or INT packet (wrong ethertype, protocol or port)")     \
	X(HW_E_L2_TRUNCATED, "l2_truncated", "frame ends inside its Ethernet or VLAN headers")                         \
	X(HW_E_IP_TRUNCATED, "ip_truncated", "packet ends inside its IP header or extension headers")                  \
	X(HW_E_IP_HEADER, "ip_header", "bad IP header (version, header length, or total length beyond the frame)")     \
	X(HW_E_L4_TRUNCATED, "l4_truncated", "packet ends inside its UDP or TCP header")                               \
	X(HW_E_UDP_LENGTH, "udp_length", "UDP length field disagrees with the packet")                                 \
	X(HW_E_REPORT_TRUNCATED, "report_truncated", "packet ends inside a telemetry report header")                   \
	X(HW_E_REPORT_VERSION, "report_version", "unknown telemetry report version")                                   \
	X(HW_E_REPORT_LENGTH, "report_length", "telemetry report length fields point past the payload")                \
	X(HW_E_REPORT_TYPE, "report_type", "unsupported individual report type or inner type")                         \
	X(HW_E_REPORT_MD, "report_md", "report metadata bits need more bytes than the metadata length gives")          \
	X(HW_E_INNER_TRUNCATED, "inner_truncated", "inner packet ends inside its L2/L3/L4 headers")                    \
	X(HW_E_INT_SHIM, "int_shim", "bad INT shim header (type or length)")                                           \
	X(HW_E_INT_VERSION, "int_version", "unknown INT metadata header version")                                      \
	X(HW_E_INT_LENGTH, "int_length", "INT shim length points past the packet or below the metadata header")        \
	X(HW_E_INT_BITMAP, "int_bitmap", "INT instruction bitmap does not fit the per-hop metadata length")            \
	X(HW_E_INT_HOPS, "int_hops", "INT stack is not a whole number of hops, or holds more hops than allowed")       \
	X(HW_E_TOO_MANY, "too_many", "packet holds more reports or hops than the output arrays allow")

enum hw_result {
#define HW_X_ENUM(e, n, m) e,
	HW_RESULT_LIST(HW_X_ENUM)
#undef HW_X_ENUM
	    HW_RESULT_COUNT
};

const char *hw_result_name(enum hw_result r);    /* short snake_case name, stable (metrics, JSON) */
const char *hw_result_message(enum hw_result r); /* one-line human explanation */

/* Vendor profiles: named, documented deviations from the specs. */
enum hw_profile {
	HW_PROFILE_STANDARD = 0, /* the P4.org specs as written */
	HW_PROFILE_GEANT = 1,    /* GEANT int-platform: v1.0-style shim whose length counts shim + MD + stack
	                          * (+ optional 4 B tail), bitmap stored little-endian, 64-bit timestamps,
	                          * hop size derived from the bitmap (hop_ml not trusted), MD version 1 or 4 */
};
const char *hw_profile_name(enum hw_profile p);
int hw_profile_from_name(const char *name); /* -1 when unknown */

/* What a drop report's drop reason code means, in words ("traffic manager: queue or buffer full" for 71),
 * after switch.p4 / SONiC DTel and fabric-tna; NULL for a code neither defines. */
const char *hw_drop_reason_name(unsigned code);

#define HW_MAX_PORTS 8

/* Parser configuration.  Fill with hw_parser_config_default(), then adjust. */
struct hw_parser_config {
	uint16_t report_ports[HW_MAX_PORTS]; /* UDP destination ports carrying telemetry reports */
	uint8_t n_report_ports;
	uint8_t int_dscp;      /* INT-MD over TCP/UDP detected when (dscp & int_dscp_mask) == int_dscp */
	uint8_t int_dscp_mask; /* 0 disables DSCP detection */
	uint8_t n_int_ports;
	uint16_t int_ports[HW_MAX_PORTS]; /* UDP destination ports that announce an INT shim (v2.1 NPT=1) */
	uint16_t vxlan_gpe_port;          /* 0 disables; default 4790 */
	uint16_t geneve_port;             /* 0 disables; default 6081 */
	uint16_t geneve_int_class;        /* Geneve option class for INT; default 0x0103 */
	uint16_t roce_port;               /* RoCEv2 UDP port; default 4791 */
	uint8_t profile;                  /* enum hw_profile */
	uint8_t max_hops;                 /* hops beyond this in one stack are HW_E_INT_HOPS; default 64 */
	uint8_t bare_int;                 /* 1: frames that are not reports are searched for INT-MD (default 1) */
};

/* Defaults: report ports {32766}, INT DSCP 0x17/0x3f, no INT UDP port, VXLAN-GPE 4790,
 * Geneve 6081 class 0x0103, RoCEv2 4791, standard profile, max 64 hops, bare INT on. */
void hw_parser_config_default(struct hw_parser_config *cfg);
/* Apply a vendor profile's detection settings (geant: DSCP 0x20/0x20, profile geant). */
void hw_parser_config_profile(struct hw_parser_config *cfg, enum hw_profile p);

/* One telemetry report found in a packet. */
struct hw_report {
	uint32_t node;        /* reporting node id */
	uint32_t seq;         /* report sequence number */
	uint8_t hw_id;        /* hardware id */
	uint8_t format;       /* enum hw_format */
	uint8_t flags;        /* enum hw_report_flag */
	uint8_t seq_bits;     /* width of the sequence number: 22 (TR v2.0), 32 (TR v0.5/v1.0), 0 (bare INT) */
	uint16_t first;       /* index of this report's first record in the record array */
	uint16_t n_hops;      /* records of this report */
	uint32_t drop_reason; /* valid when flags has HW_RF_DROPPED and the report carried one */
};

/* Caller-provided output arrays.  Set recs/rec_cap and reps/rep_cap; the parser fills the
 * counts.  On any error the counts are 0: a packet is either parsed whole or rejected whole. */
struct hw_parse_out {
	struct hw_record *recs;
	uint32_t rec_cap;
	uint32_t n_recs;
	struct hw_report *reps;
	uint32_t rep_cap;
	uint32_t n_reps;
	uint32_t err_offset; /* on error: byte offset into the input where parsing stopped */
};

/* Parse one Ethernet frame.  time_ns goes into every record.  Returns HW_OK with at least one
 * report, HW_NOT_REPORT, or an error. */
enum hw_result hw_parse_frame(const struct hw_parser_config *cfg, const uint8_t *frame, size_t len, uint64_t time_ns,
                              struct hw_parse_out *out);

/* Parse one UDP payload that arrived on a report port (the telemetry report itself). */
enum hw_result hw_parse_report(const struct hw_parser_config *cfg, const uint8_t *payload, size_t len, uint64_t time_ns,
                               struct hw_parse_out *out);

#ifdef __cplusplus
}
#endif
#endif
