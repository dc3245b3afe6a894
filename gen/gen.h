/* hopwatch-gen: configuration, the report model and the encoder entry points.
 * The model (what a report says) is built first; encoders turn it into bytes, truth.c into records. */
#ifndef HOPWATCH_GEN_H
#define HOPWATCH_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hopwatch/record.h"

#define GEN_MAX_HOPS 64     /* hops of one embedded INT stack */
#define GEN_MAX_COALESCE 64 /* individual reports in one TR v2.0 packet */
#define GEN_MAX_FRAME 16384 /* largest --mtu */
#define GEN_MAX_REPORT 8192 /* more than one report can take (stack <= 1020 B, payload <= 1500 B) */
#define GEN_MAX_NODES 65535

enum gen_format { GEN_FMT_TR20, GEN_FMT_TR10, GEN_FMT_TR05, GEN_FMT_INT };
enum gen_int_ver { GEN_INT_NONE, GEN_INT_V05, GEN_INT_V10, GEN_INT_V21 };
enum gen_encap { GEN_ENCAP_L4, GEN_ENCAP_VXLAN_GPE, GEN_ENCAP_GENEVE };
enum gen_detect { GEN_DETECT_DSCP, GEN_DETECT_PORT };
enum gen_l4 { GEN_L4_UDP, GEN_L4_TCP, GEN_L4_MIX };
enum gen_ipver { GEN_IP4, GEN_IP6, GEN_IP_MIX };
enum gen_in_type { GEN_IN_ETH, GEN_IN_IP };

/* INT instruction bits (v2.1 / v1.0 positions; v0.5 uses the same positions for bits 0-5, 7). */
enum {
	GEN_I_NODE = 0x8000,
	GEN_I_PORTS = 0x4000,
	GEN_I_LATENCY = 0x2000,
	GEN_I_QUEUE = 0x1000,
	GEN_I_IG_TS = 0x0800,
	GEN_I_EG_TS = 0x0400,
	GEN_I_L2_PORTS = 0x0200,
	GEN_I_TX_UTIL = 0x0100,
	GEN_I_BUFFER = 0x0080,
	GEN_I_CHECKSUM = 0x0001,
};

/* TR v2.0 RepMdBits (same positions as the INT bitmap, 0x0001 = queue id + drop reason). */
enum {
	GEN_R_PORTS = 0x4000,
	GEN_R_LATENCY = 0x2000,
	GEN_R_QUEUE = 0x1000,
	GEN_R_IG_TS = 0x0800,
	GEN_R_EG_TS = 0x0400,
	GEN_R_L2_PORTS = 0x0200,
	GEN_R_TX_UTIL = 0x0100,
	GEN_R_BUFFER = 0x0080,
	GEN_R_DROP = 0x0001,
};

/* TR v1.0 rep_md_bits (6 bits, bit 0 = 0x20). */
enum {
	GEN_R1_PORTS = 0x20,
	GEN_R1_LATENCY = 0x10,
	GEN_R1_QUEUE = 0x08,
	GEN_R1_EG_TS = 0x04,
	GEN_R1_DROP = 0x02,
	GEN_R1_TX_UTIL = 0x01,
};

enum gen_malform {
	GEN_M_NONE = 0,
	GEN_M_TRUNCATE,
	GEN_M_REPORT_LENGTH,
	GEN_M_SHIM_LENGTH,
	GEN_M_HOPS,
	GEN_M_REPORT_VERSION,
	GEN_M_INT_VERSION,
	GEN_M_BITMAP,
	GEN_M_IP_HLEN,
	GEN_M_UDP_LENGTH,
	GEN_M_COUNT
};
const char *gen_malform_name(unsigned kind);

struct gen_cfg {
	uint8_t format;   /* enum gen_format */
	uint8_t int_ver;  /* enum gen_int_ver */
	uint8_t profile;  /* enum hw_profile */
	uint8_t encap;    /* enum gen_encap */
	uint8_t detect;   /* enum gen_detect */
	uint8_t l4;       /* enum gen_l4 */
	uint8_t ipver;    /* enum gen_ipver */
	uint8_t in_type;  /* enum gen_in_type (TR v2.0 / v1.0 inner start) */
	uint8_t roce;     /* UDP flows are RoCEv2 (dport 4791 + BTH) */
	uint8_t int_dscp; /* DSCP that marks INT (DSCP detection) */
	uint8_t hops;     /* hops in the embedded stack (the most; per flow from hops_min to hops) */
	uint8_t hops_min;
	uint8_t coalesce;    /* TR v2.0 individual reports per packet */
	uint8_t last_len_ff; /* TR v2.0: last report of a packet uses report_length 0xFF */
	uint16_t instructions;
	uint16_t rep_md;       /* TR v2.0 RepMdBits or TR v1.0 6-bit rep_md_bits (without the drop bit) */
	uint16_t int_port;     /* v2.1 NPT=1 / v0.5 destination port announcing INT */
	uint16_t dst_port;     /* collector UDP port */
	int32_t src_port;      /* report UDP source port, -1 = per format default */
	uint16_t payload;      /* data packet L4 payload bytes carried (after INT) */
	uint16_t orig_payload; /* original L4 payload length the inner IP length claims (TR inner only) */
	uint16_t mtu;          /* TR v2.0 coalescing closes a packet before it exceeds this */
	uint8_t collector_ip[4];
	uint8_t sender_net[4]; /* report source address = sender_net + node index + 1 */
	uint32_t node_id_base; /* node id = node_id_base + node index + 1 (0: ids 1..N; scenarios: 10.255.0.0) */
	uint32_t count;        /* reports to write */
	uint32_t flows;
	uint32_t nodes;
	uint32_t seq_gap_every;
	uint32_t seq_start;
	uint32_t hw_ids;
	uint32_t congest_threshold; /* Q flag when the reporting hop's occupancy is at least this */
	uint64_t seed;
	uint64_t epoch_ns;        /* first pcap timestamp */
	uint64_t interval_ns;     /* between packets */
	uint64_t dev_clock_start; /* device clocks (ingress/egress timestamps) start near here */
	uint32_t skew_node;       /* --clock-skew: this node's clock (0 = none) ... */
	int64_t skew_ns;          /* ... is off by this much (for diagnose tests) */
	double drop_rate, intermediate_rate, unavailable_rate, cnp_rate;
	double malform_rate[GEN_M_COUNT];
	uint8_t malform_any;
	uint8_t sink_md_stack;      /* tr2.0: the reporting node pushes its metadata onto the stack (RepMdBits 0) */
	uint8_t geant_no_tail;      /* geant: no 4-byte tail (as in GEANT's FPGA sink capture) */
	uint8_t geant_hop_ml_words; /* geant: hop_ml = the hop's words instead of the instruction count */
	uint8_t p4;                 /* --preset hopwatch-p4: what p4/hopwatch_v1model.p4 sends (see p4.c) */
	uint8_t stable_paths;       /* --flow-paths stable: a flow keeps its sink and path (see model.c) */
	double path_change_rate;    /* stable paths: fraction of reports on which the flow's path moves */
	double burst_rate;          /* fraction of hops whose queue is in a burst */
	uint32_t queues;            /* egress queues (node, port, queue id) in all; 0 = by flow and node */
};

/* --preset hopwatch-p4: values p4/README.md fixes, and the example configuration of p4/cli/. */
#define GEN_P4_REP_MD 0x7C00u      /* INT and queue reports: ports, latency, queue, ig + eg ts */
#define GEN_P4_REP_MD_DROP 0x4801u /* drop reports: ports, ig ts, queue id + drop reason */
#define GEN_P4_INNER_MAX 512u      /* HW_REPORT_INNER_MAX */
#define GEN_P4_MAX_HOPS 8u         /* int_source_dscp(0xFC00, 8): Remaining Hop Count at the source */
#define GEN_P4_QUOTA 64u           /* set_queue_thresholds 2 0 => 20 50000 64 5 1 */
#define GEN_P4_RESET 5u
#define GEN_P4_LATENCY_THR 50000u
#define GEN_P4_QUEUE_CAP 64u     /* BMv2's default queue: 64 packets */
#define GEN_P4_SRC_PORT 50000u   /* report_encap src_port = 50000 + node id */
#define GEN_P4_MAX_NODES 9u      /* sink stack: nodes - 1 hops <= 8 */
#define GEN_P4_MAX_PAYLOAD 1200u /* 8 hops + INT headers stay within a 1500 B egress MTU */

/* One inner flow: the 5-tuple the collector sees in the first IP header of the inner packet. */
struct gen_flow {
	uint8_t src_ip[16], dst_ip[16]; /* IPv4-mapped for IPv4 */
	uint8_t ipv6;
	uint8_t proto; /* 6 or 17 (17 for VXLAN-GPE / Geneve) */
	uint8_t dscp, ecn;
	uint8_t roce;
	uint16_t sport, dport; /* original destination port */
	uint32_t qp;
	uint64_t hash; /* hw_flow_hash of the visible 5-tuple */
	/* With VXLAN-GPE / Geneve the visible tuple is the tunnel's; the tenant's is kept here. */
	uint8_t t_src[4], t_dst[4];
	uint8_t t_proto;
	uint16_t t_sport, t_dport;
	uint16_t vis_dport, vis_sport;
};

/* One hop's metadata values.  unavail: instruction bits written as all ones (INT stack only). */
struct gen_hop {
	uint32_t node_id;
	uint16_t in_port, out_port;
	uint32_t l2_in, l2_out;
	uint32_t latency;
	uint8_t qid, bid;
	uint32_t qocc, bocc; /* 24 bits */
	uint64_t ig_ts, eg_ts;
	uint32_t tx_util;
	uint16_t unavail;
};

/* One report: an embedded stack of n_stack hops (oldest first) and, for telemetry reports, the
 * reporting node's own hop in hops[n_stack]. */
struct gen_report {
	const struct gen_flow *flow;
	uint8_t n_stack;
	uint8_t flags; /* HW_RF_* (dropped, congested_queue, tracked_flow, intermediate) */
	uint8_t drop_reason;
	uint8_t roce_opcode;
	uint8_t ttl;    /* inner IPv4 TTL, 0 = 64 */
	uint8_t ecn_ce; /* inner ECN rewritten to CE (3) on the way (congestion events) */
	uint32_t psn;
	struct gen_hop hops[GEN_MAX_HOPS + 1];
};

/* Where the encoder put things, for the malformer. */
struct gen_marks {
	uint16_t ip_off, udp_off, payload_off, len;
	uint16_t rep_off;                                /* first report header (TR1/TR2 individual report) */
	uint16_t rep_end;                                /* end of that report's bytes */
	uint16_t shim_off, md_off, stack_end, inner_end; /* first embedded stack; 0 = none */
	uint8_t shim_kind;                               /* enum gen_shim_kind */
	uint8_t hop_words;
	uint16_t last_rep_off; /* TR v2.0: header of the last individual report */
};
enum gen_shim_kind {
	GEN_SHIM_NONE,
	GEN_SHIM_21,     /* v2.1 TCP/UDP shim: length excludes shim, byte 1 */
	GEN_SHIM_10,     /* v1.0 / v0.5 / geant: length includes shim, byte 2 */
	GEN_SHIM_21_GPE, /* v2.1 VXLAN-GPE shim, byte 1 */
	GEN_SHIM_10_GPE, /* v1.0/v0.5 GPE shim, byte 2 */
	GEN_SHIM_GENEVE, /* Geneve option: 5-bit length at byte 3 */
};

/* Packet under construction. */
struct gen_pkt {
	uint8_t buf[GEN_MAX_FRAME + GEN_MAX_REPORT]; /* a report is added before the MTU check */
	size_t len;
	uint32_t node_idx; /* sender */
	uint32_t seq;
	uint8_t hw_id;
	uint8_t n_reps;
	struct gen_report reps[GEN_MAX_COALESCE];
	struct gen_marks marks;
};

/* Words each instruction bit occupies in one hop for the version/profile. */
unsigned gen_int_hop_words(uint16_t bitmap, unsigned int_ver, unsigned profile);
/* RepMdBits of one TR v2.0 report (drop bit included). */
uint16_t gen_tr2_report_bits(const struct gen_cfg *cfg, const struct gen_report *r);
/* Bytes of a TR v2.0 RepMdBits metadata block / TR v1.0 rep_md_bits block. */
unsigned gen_tr2_md_bytes(uint16_t bits);
unsigned gen_tr1_md_bytes(uint8_t bits);

/* inner.c: Ethernet header and the IPv4 header checksum (also used for the outer headers). */
uint16_t gen_ip_checksum(const uint8_t *hdr, size_t len);
uint8_t *gen_eth(uint8_t *p, const uint8_t dst[6], const uint8_t src[6], uint16_t ethertype);

/* int_md.c: the INT-MD part (shim, MD header, stack, tail) for a data packet carried in UDP/TCP or
 * behind a VXLAN-GPE / Geneve header. Returns the end.  Records offsets in marks (if not NULL and
 * marks->shim_off == 0). */
uint8_t *gen_int_l4(const struct gen_cfg *cfg, const struct gen_report *r, uint8_t *p, const uint8_t *base,
                    struct gen_marks *m, uint8_t orig_dscp);
uint8_t *gen_int_md_stack(const struct gen_cfg *cfg, const struct gen_report *r, uint8_t *p, const uint8_t *base,
                          struct gen_marks *m);
size_t gen_int_md_stack_bytes(const struct gen_cfg *cfg, const struct gen_report *r);

/* inner.c: the data packet (optionally with INT) starting at Ethernet (with_eth) or IP.
 * truncated: the IP/UDP lengths claim the original payload (report inner packet); the bytes written
 * end after cfg->payload bytes of L4 payload; pad_to: round the written length up (zero bytes). */
uint8_t *gen_data_packet(const struct gen_cfg *cfg, const struct gen_report *r, uint8_t *p, const uint8_t *base,
                         struct gen_marks *m, int with_eth, int truncated, unsigned pad_to);

/* Report encoders: each writes the whole frame (outer Ethernet/IPv4/UDP + report). */
void gen_outer_begin(const struct gen_cfg *cfg, struct gen_pkt *k);
void gen_outer_finish(const struct gen_cfg *cfg, struct gen_pkt *k);
void gen_tr2_begin(const struct gen_cfg *cfg, struct gen_pkt *k);
/* Append one individual report; returns 1 when it needed report_length 0xFF (must be the last). */
int gen_tr2_add(const struct gen_cfg *cfg, struct gen_pkt *k, const struct gen_report *r);
void gen_tr2_close(const struct gen_cfg *cfg, struct gen_pkt *k);
void gen_tr1_build(const struct gen_cfg *cfg, struct gen_pkt *k);
void gen_tr05_build(const struct gen_cfg *cfg, struct gen_pkt *k);
void gen_int_build(const struct gen_cfg *cfg, struct gen_pkt *k);
/* Build the whole frame of k (its reports already filled) for cfg->format. */
void gen_build_frame(const struct gen_cfg *cfg, struct gen_pkt *k);

/* truth.c: the records a collector should decode from one valid packet. Returns the count. */
unsigned gen_truth_records(const struct gen_cfg *cfg, const struct gen_pkt *k, uint64_t time_ns, struct hw_record *out,
                           unsigned cap);

/* malform.c: apply one malformation to a built frame; returns 1 if applied, 0 if not applicable. */
int gen_malform_apply(const struct gen_cfg *cfg, struct gen_pkt *k, unsigned kind, uint64_t rnd);
/* Whether kind can apply to this configuration (CLI check); NULL when yes, else why not. */
const char *gen_malform_unsupported(const struct gen_cfg *cfg, unsigned kind);

/* model.c: nodes, flows and the values of each report. */
struct gen_model;
struct gen_model *gen_model_new(const struct gen_cfg *cfg);
void gen_model_free(struct gen_model *m);
/* Start a packet: picks the sender, hw_id and sequence number. */
void gen_model_packet(struct gen_model *m, struct gen_pkt *k, uint64_t sim_ns);
/* Fill report r of packet k. */
void gen_model_report(struct gen_model *m, const struct gen_pkt *k, struct gen_report *r, uint64_t sim_ns);
uint32_t gen_node_id(const struct gen_cfg *cfg, uint32_t node_idx);
/* p4.c (--preset hopwatch-p4): the line of switches the program runs on. */
struct gen_p4;
struct gen_p4 *gen_p4_new(const struct gen_cfg *cfg, const struct gen_flow *flows);
void gen_p4_free(struct gen_p4 *p);
/* The next report the switches send (simulating data packets as needed): its sender and contents. */
void gen_p4_next(struct gen_p4 *p, uint64_t *rng, uint64_t sim_ns, uint32_t *node_idx, struct gen_report *r);
void gen_p4_flow(const struct gen_cfg *cfg, uint32_t i, uint64_t r, struct gen_flow *f);
void gen_flow_finish(const struct gen_cfg *cfg, struct gen_flow *f);

/* options.c: defaults (see --help) and the command line. */
void gen_cfg_default(struct gen_cfg *cfg);
/* Parse argv after the subcommand. Returns 0 ok, 2 usage error (message printed), 1 help printed. */
struct gen_paths {
	const char *out, *truth, *summary;
};
int gen_parse_args(int argc, char **argv, struct gen_cfg *cfg, struct gen_paths *paths);
void gen_usage(FILE *f);

#endif
