// The header and metadata structs shared by all hopwatch fragments, plus build-time settings.
// A fabric program adds its own headers next to these; the fragments only touch what is here.
#ifndef HOPWATCH_INT_TYPES_P4
#define HOPWATCH_INT_TYPES_P4

#include "net_headers.p4"
#include "int_headers.p4"

/* ---- Build-time settings (override with p4c -D NAME=VALUE) ------------------------------------ */

// INT-MD over TCP/UDP is announced by DSCP: (dscp & MASK) == VALUE.  Must match the collector's
// int_dscp / int_dscp_mask (default 0x17 / 0x3f).  MASK 0 disables DSCP detection.
#ifndef HW_INT_DSCP
#define HW_INT_DSCP 0x17
#endif
#ifndef HW_INT_DSCP_MASK
#define HW_INT_DSCP_MASK 0x3f
#endif
// ... and/or by a UDP destination port (shim NPT 1).  0 disables.  Must be one of the
// collector's int_ports when used.
#ifndef HW_INT_UDP_PORT
#define HW_INT_UDP_PORT 0
#endif
// Largest inner packet copied into a report, bytes (reports stay below report_length 255).
#ifndef HW_REPORT_INNER_MAX
#define HW_REPORT_INNER_MAX 512
#endif
// Sizes of the per-queue and per-report-path register arrays.
#ifndef HW_QUEUE_SLOTS
#define HW_QUEUE_SLOTS 4096
#endif
#ifndef HW_REPORT_PATHS
#define HW_REPORT_PATHS 16
#endif

const bit<6>  INT_DSCP = HW_INT_DSCP;
const bit<6>  INT_DSCP_MASK = HW_INT_DSCP_MASK;
const bit<16> INT_UDP_PORT = HW_INT_UDP_PORT;
const bit<16> REPORT_INNER_MAX = HW_REPORT_INNER_MAX;
const bit<16> DEFAULT_MTU = 1500;

/* ---- Headers ---------------------------------------------------------------------------------- */

// Deparse order is the order below: report encapsulation first (valid only on report copies),
// then the packet itself with INT after L4.
struct hw_headers_t {
    ethernet_t           rpt_ethernet;
    ipv4_t               rpt_ipv4;
    udp_t                rpt_udp;
    tr2_group_t          tr2_group;
    tr2_indiv_t          tr2_indiv;
    tr2_int_main_t       tr2_int_main;
    int_l1_ports_t       rpt_l1_ports;
    int_hop_latency_t    rpt_hop_latency;
    int_q_occupancy_t    rpt_q_occupancy;
    int_ingress_tstamp_t rpt_ingress_tstamp;
    int_egress_tstamp_t  rpt_egress_tstamp;
    tr2_md_drop_t        rpt_md_drop;

    ethernet_t           ethernet;
    ipv4_t               ipv4;
    udp_t                udp;
    tcp_t                tcp;
    int21_shim_t         int_shim;
    int21_md_t           int_md;
    int_node_id_t        int_node_id;
    int_l1_ports_t       int_l1_ports;
    int_hop_latency_t    int_hop_latency;
    int_q_occupancy_t    int_q_occupancy;
    int_ingress_tstamp_t int_ingress_tstamp;
    int_egress_tstamp_t  int_egress_tstamp;
    int_l2_ports_t       int_l2_ports;
    int_egress_tx_util_t int_egress_tx_util;
    int_buffer_t         int_buffer;
    int21_stack_t        int_stack;
}

/* ---- What the target tells the fragments about this hop --------------------------------------- */

// Filled by the architecture glue (hopwatch_v1model.p4 for BMv2) from its intrinsic metadata,
// so the fragments themselves do not depend on v1model.  Unknown values are all ones.
struct int_hop_info_t {
    bit<16> ingress_port;
    bit<16> egress_port;
    bit<32> hop_latency;
    bit<8>  queue_id;
    bit<24> queue_occupancy;
    bit<64> ingress_tstamp;
    bit<64> egress_tstamp;
    bit<32> egress_tx_util;
}

/* ---- Metadata --------------------------------------------------------------------------------- */

// Report kinds carried to the report copy.
const bit<2> RPT_NONE = 0;
const bit<2> RPT_INT = 1;     // sink report (F, plus Q when the sink queue is congested)
const bit<2> RPT_QUEUE = 2;   // congestion event at a source/transit hop (Q)
const bit<2> RPT_DROP = 3;    // pipeline drop (D)

// Field lists (v1model @field_list): what survives a clone or a recirculation.
#define HW_FL_REPORT 1
#define HW_FL_RECIRC 2

struct hw_meta_t {
    // Parser results.
    bit<1>  int_ok;            // a well-formed INT v2.1 MD header (and stack) was parsed
    bit<16> l4_src_port;
    bit<16> l4_dst_port;

    // Switch configuration (int_config.p4).
    bit<32> node_id;
    bit<6>  hw_id;
    bit<16> egress_mtu;        // IP MTU of the egress port

    // Source decision (ingress watchlist) and role flags.
    bit<1>  src_watch;
    bit<1>  src_by_port;       // 1: announce INT with INT_UDP_PORT (NPT 1), 0: with DSCP
    bit<16> src_ins_mask;
    bit<8>  src_max_hops;
    bit<1>  int_sink;
    bit<1>  congested;
    bit<1>  drop;
    bit<8>  drop_reason;
    bit<16> tcp_len;           // TCP length for the checksum pseudo-header

    // Carried to the report copy.
    @field_list(HW_FL_REPORT) bit<2>  rpt_kind;
    @field_list(HW_FL_REPORT) bit<1>  rpt_q;
    @field_list(HW_FL_REPORT) bit<1>  rpt_f;
    @field_list(HW_FL_REPORT) bit<16> rpt_ingress_port;
    @field_list(HW_FL_REPORT) bit<16> rpt_egress_port;
    @field_list(HW_FL_REPORT) bit<32> rpt_hop_latency;
    @field_list(HW_FL_REPORT) bit<8>  rpt_queue_id;
    @field_list(HW_FL_REPORT) bit<24> rpt_queue_occupancy;
    @field_list(HW_FL_REPORT) bit<64> rpt_ingress_tstamp;
    @field_list(HW_FL_REPORT) bit<64> rpt_egress_tstamp;
    @field_list(HW_FL_REPORT) bit<8>  rpt_drop_reason;
    // INT was added to / removed from a TCP segment: recompute its checksum (report copies too).
    @field_list(HW_FL_REPORT) bit<1>  tcp_changed;
    bit<32> rpt_trunc_len;     // set by int_report: bytes of the report frame to keep

    // Carried through the sink's recirculation (the pass that removes INT).
    @field_list(HW_FL_RECIRC) bit<1>  strip_int;
    @field_list(HW_FL_RECIRC) bit<16> strip_port;
}

// Words of per-hop metadata an instruction bitmap asks for (bits 4-6 are 8 B each).
bit<5> int_hop_words(in bit<16> m) {
    return (bit<5>)m[15:15] + (bit<5>)m[14:14] + (bit<5>)m[13:13] + (bit<5>)m[12:12]
         + ((bit<5>)m[11:11] << 1) + ((bit<5>)m[10:10] << 1) + ((bit<5>)m[9:9] << 1)
         + (bit<5>)m[8:8] + (bit<5>)m[7:7];
}

#endif
