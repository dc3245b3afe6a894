// INT v2.1 (INT-MD over TCP/UDP) and Telemetry Report v2.0 / v0.5 header types and constants.
// Names match include/hopwatch/wire_layout.h: P4 type NAME_t <-> C layout NAME, same field names.
#ifndef HOPWATCH_INT_HEADERS_P4
#define HOPWATCH_INT_HEADERS_P4

// Layout rule (checked by tests/p4): a header type whose name without the "_t" suffix names an
// entry of hw_layout_headers[] must have exactly that entry's fields, in order, with the same
// widths.  Only literal bit<N> widths (or typedefs of them) are used in these types.

/* ---- INT v2.1 over TCP/UDP ------------------------------------------------------------------ */

// Shim header, 4 B.  len counts the MD header and the stack in 4 B words, not the shim itself.
// npt_field: NPT 0 -> rsvd:8 dscp:6 r:2; NPT 1 -> original UDP destination port; NPT 2 -> rsvd:8 proto:8.
header int21_shim_t {
    bit<4>  int_type;       // 1 = INT-MD
    bit<2>  npt;
    bit<2>  rsvd;
    bit<8>  len;
    bit<16> npt_field;
}

// INT-MD metadata header, 12 B.
header int21_md_t {
    bit<4>  ver;            // 2
    bit<1>  d;
    bit<1>  e;              // remaining hop count exhausted
    bit<1>  m;              // MTU would have been exceeded
    bit<12> rsvd;
    bit<5>  hop_ml;         // words of metadata per hop
    bit<8>  remaining_hop_cnt;
    bit<16> instruction_mask;
    bit<16> ds_id;
    bit<16> ds_instruction;
    bit<16> ds_flags;
}

// Metadata pushed by upstream hops, newest first; parsed as one opaque block of
// (shim.len - 3) words.  255 words is the most a shim can describe.
header int21_stack_t {
    varbit<8064> words;
}

// One header type per instruction bit, in bitmap order (bit 0 = MSB = 0x8000).
header int_node_id_t {          // 0x8000, 4 B
    bit<32> node_id;
}
header int_l1_ports_t {         // 0x4000, 4 B
    bit<16> ingress_port;
    bit<16> egress_port;
}
header int_hop_latency_t {      // 0x2000, 4 B
    bit<32> hop_latency;
}
header int_q_occupancy_t {      // 0x1000, 4 B
    bit<8>  queue_id;
    bit<24> queue_occupancy;
}
header int_ingress_tstamp_t {   // 0x0800, 8 B in INT v2.x
    bit<64> ingress_tstamp;
}
header int_egress_tstamp_t {    // 0x0400, 8 B in INT v2.x
    bit<64> egress_tstamp;
}
header int_l2_ports_t {         // 0x0200, 8 B
    bit<32> ingress_port;
    bit<32> egress_port;
}
header int_egress_tx_util_t {   // 0x0100, 4 B
    bit<32> egress_tx_util;
}
header int_buffer_t {           // 0x0080, 4 B
    bit<8>  buffer_id;
    bit<24> buffer_occupancy;
}

const bit<4>  INT_TYPE_MD = 1;
const bit<4>  INT_VERSION_21 = 2;
const bit<16> INT_SHIM_MD_BYTES = 16;

const bit<16> INT_INS_NODE_ID    = 0x8000;
const bit<16> INT_INS_L1_PORTS   = 0x4000;
const bit<16> INT_INS_HOP_LAT    = 0x2000;
const bit<16> INT_INS_Q_OCC      = 0x1000;
const bit<16> INT_INS_IG_TSTAMP  = 0x0800;
const bit<16> INT_INS_EG_TSTAMP  = 0x0400;
const bit<16> INT_INS_L2_PORTS   = 0x0200;
const bit<16> INT_INS_TX_UTIL    = 0x0100;
const bit<16> INT_INS_BUFFER     = 0x0080;
// Bits this program can honour; a packet asking for any other bit gets no metadata from us.
const bit<16> INT_INS_SUPPORTED  = 0xFF80;

/* ---- Telemetry Report v2.0 ------------------------------------------------------------------ */

// Group header, 8 B.
header tr2_group_t {
    bit<4>  ver;            // 2
    bit<6>  hw_id;
    bit<22> seq_no;
    bit<32> node_id;
}

// Individual report header, 4 B.  report_length and md_length in 4 B words; report_length
// excludes this word.
header tr2_indiv_t {
    bit<4> rep_type;        // 1 = INT
    bit<4> in_type;         // 4 = IPv4
    bit<8> report_length;
    bit<8> md_length;
    bit<1> d;
    bit<1> q;
    bit<1> f;
    bit<1> i;
    bit<4> rsvd;
}

// Individual report main contents for RepType 1 (INT), fixed part, 8 B.
header tr2_int_main_t {
    bit<16> rep_md_bits;
    bit<16> ds_id;
    bit<16> ds_md_bits;
    bit<16> ds_md_status;
}

// RepMdBits 0x0001: queue id + drop reason + padding, 4 B.  The other RepMdBits reuse the
// per-hop INT metadata types above (same sizes and order).
header tr2_md_drop_t {
    bit<8>  queue_id;
    bit<8>  drop_reason;
    bit<16> pad;
}

const bit<4>  TR2_VERSION = 2;
const bit<4>  TR2_REP_TYPE_INT = 1;
const bit<4>  TR2_IN_TYPE_IPV4 = 4;
const bit<16> TR2_MD_L1_PORTS  = 0x4000;
const bit<16> TR2_MD_HOP_LAT   = 0x2000;
const bit<16> TR2_MD_Q_OCC     = 0x1000;
const bit<16> TR2_MD_IG_TSTAMP = 0x0800;
const bit<16> TR2_MD_EG_TSTAMP = 0x0400;
const bit<16> TR2_MD_Q_DROP    = 0x0001;

/* ---- Telemetry Report v1.0 (for reference; not emitted by hopwatch_v1model.p4) --------------- */

header tr1_hdr_t {
    bit<4>  ver;
    bit<4>  len;
    bit<3>  nproto;
    bit<6>  rep_md_bits;
    bit<6>  rsvd;
    bit<1>  d;
    bit<1>  q;
    bit<1>  f;
    bit<6>  hw_id;
    bit<32> switch_id;
    bit<32> seq_no;
    bit<32> ingress_tstamp;
}

/* ---- Telemetry Report v0.5 (fabric-tna compatible; not emitted by hopwatch_v1model.p4) ------- */

// Fixed header, 12 B.  nproto: 0 Ethernet, 1 drop header + Ethernet, 2 local header + Ethernet.
header tr05_fixed_t {
    bit<4>  ver;            // 0
    bit<4>  nproto;
    bit<1>  d;
    bit<1>  q;
    bit<1>  f;
    bit<15> rsvd;
    bit<6>  hw_id;
    bit<32> seq_no;
    bit<32> ig_tstamp;
}

// Switch-local header, 16 B.
header tr05_local_t {
    bit<32> switch_id;
    bit<16> ig_port;
    bit<16> eg_port;
    bit<8>  queue_id;
    bit<24> queue_occupancy;
    bit<32> eg_tstamp;
}

// Drop header, 12 B.
header tr05_drop_t {
    bit<32> switch_id;
    bit<16> ig_port;
    bit<16> eg_port;
    bit<8>  queue_id;
    bit<8>  drop_reason;
    bit<16> pad;
}

// TR v0.5 nproto: 0 Ethernet, 1 drop header, 2 switch-local header (declared, not emitted here).

/* ---- Drop reasons (the p4lang/switch and fabric-tna codes) ----------------------------------- */

const bit<8> DROP_REASON_UNKNOWN = 0;
const bit<8> DROP_REASON_IP_TTL_ZERO = 26;
const bit<8> DROP_REASON_ROUTING_V4_MISS = 29;

#endif
