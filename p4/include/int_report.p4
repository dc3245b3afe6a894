// Telemetry Report v2.0 builder: wraps a report copy of a packet in Ethernet/IPv4/UDP, a group
// header with a per-path sequence number, and one INT individual report with this node's metadata.
#ifndef HOPWATCH_INT_REPORT_P4
#define HOPWATCH_INT_REPORT_P4

#include "int_types.p4"

// Report layout (one individual report per packet):
//   Ethernet | IPv4 (DF, TTL 64) | UDP (checksum 0) | group: ver 2, hw_id, seq_no, node_id
//   | indiv: rep_type 1 (INT), in_type 4 (IPv4), report_length, md_length, D Q F, I (1 on a
//     queue report of an INT packet from a switch that is not the flow's sink)
//   | main: rep_md_bits, ds_id 0, ds_md_bits 0, ds_md_status 0 | metadata | inner packet
// RepMdBits: INT and queue reports 0x7C00 (L1 ports, hop latency, queue id + occupancy,
// ingress ts, egress ts: 7 words); drop reports 0x4801 (L1 ports with egress 0xFFFF, ingress ts,
// queue id + drop reason: 4 words).  The inner packet is the IPv4 packet as this switch saw it on
// egress (INT stack included), cut to a whole number of words and at most REPORT_INNER_MAX bytes.
// Starting at IPv4 (not Ethernet) keeps every header on a word boundary, so the cut can only
// ever fall in the payload, never inside the INT stack.
control hw_int_report(inout hw_headers_t hdr, inout hw_meta_t meta) {
    // Next sequence number per report path (node, hw_id, collector).
    register<bit<32>>(HW_REPORT_PATHS) report_seq;

    bit<32> path = 0;

    // Where reports go.  Keyless: configure with table_set_default.
    action set_report_encap(bit<48> src_mac, bit<48> dst_mac, bit<32> src_ip, bit<32> dst_ip,
                            bit<16> src_port, bit<16> dst_port, bit<32> seq_path) {
        hdr.rpt_ethernet.setValid();
        hdr.rpt_ethernet.dst_addr = dst_mac;
        hdr.rpt_ethernet.src_addr = src_mac;
        hdr.rpt_ethernet.ether_type = ETHERTYPE_IPV4;

        hdr.rpt_ipv4.setValid();
        hdr.rpt_ipv4.version = 4;
        hdr.rpt_ipv4.ihl = 5;
        hdr.rpt_ipv4.dscp = 0;
        hdr.rpt_ipv4.ecn = 0;
        hdr.rpt_ipv4.identification = 0;
        hdr.rpt_ipv4.flags = 0b010;          // don't fragment
        hdr.rpt_ipv4.frag_offset = 0;
        hdr.rpt_ipv4.ttl = 64;
        hdr.rpt_ipv4.protocol = IP_PROTO_UDP;
        hdr.rpt_ipv4.hdr_checksum = 0;       // computed by the deparser's checksum step
        hdr.rpt_ipv4.src_addr = src_ip;
        hdr.rpt_ipv4.dst_addr = dst_ip;

        hdr.rpt_udp.setValid();
        hdr.rpt_udp.src_port = src_port;
        hdr.rpt_udp.dst_port = dst_port;
        hdr.rpt_udp.checksum = 0;
        path = seq_path;
    }
    action no_report_encap() {
    }
    table report_encap {
        actions = { set_report_encap; no_report_encap; }
        default_action = no_report_encap();
    }

    apply {
        report_encap.apply();
        if (hdr.rpt_ethernet.isValid() && !hdr.ipv4.isValid()) {
            hdr.rpt_ethernet.setInvalid();          // only IPv4 packets are reported
        }
        if (hdr.rpt_ethernet.isValid()) {
            bit<32> seq;
            report_seq.read(seq, path);
            report_seq.write(path, seq + 1);

            hdr.tr2_group.setValid();
            hdr.tr2_group.ver = TR2_VERSION;
            hdr.tr2_group.hw_id = meta.hw_id;
            hdr.tr2_group.seq_no = seq[21:0];
            hdr.tr2_group.node_id = meta.node_id;

            hdr.tr2_int_main.setValid();
            hdr.tr2_int_main.ds_id = 0;
            hdr.tr2_int_main.ds_md_bits = 0;
            hdr.tr2_int_main.ds_md_status = 0;

            hdr.rpt_l1_ports.setValid();
            hdr.rpt_l1_ports.ingress_port = meta.rpt_ingress_port;
            hdr.rpt_ingress_tstamp.setValid();
            hdr.rpt_ingress_tstamp.ingress_tstamp = meta.rpt_ingress_tstamp;
            bit<8> md_words;
            if (meta.rpt_kind == RPT_DROP) {
                hdr.tr2_int_main.rep_md_bits = TR2_MD_L1_PORTS | TR2_MD_IG_TSTAMP | TR2_MD_Q_DROP;
                md_words = 4;
                hdr.rpt_l1_ports.egress_port = 0xFFFF;   // dropped before an egress port was chosen
                hdr.rpt_md_drop.setValid();
                hdr.rpt_md_drop.queue_id = meta.rpt_queue_id;
                hdr.rpt_md_drop.drop_reason = meta.rpt_drop_reason;
                hdr.rpt_md_drop.pad = 0;
            } else {
                hdr.tr2_int_main.rep_md_bits = TR2_MD_L1_PORTS | TR2_MD_HOP_LAT | TR2_MD_Q_OCC
                                             | TR2_MD_IG_TSTAMP | TR2_MD_EG_TSTAMP;
                md_words = 7;
                hdr.rpt_l1_ports.egress_port = meta.rpt_egress_port;
                hdr.rpt_hop_latency.setValid();
                hdr.rpt_hop_latency.hop_latency = meta.rpt_hop_latency;
                hdr.rpt_q_occupancy.setValid();
                hdr.rpt_q_occupancy.queue_id = meta.rpt_queue_id;
                hdr.rpt_q_occupancy.queue_occupancy = meta.rpt_queue_occupancy;
                hdr.rpt_egress_tstamp.setValid();
                hdr.rpt_egress_tstamp.egress_tstamp = meta.rpt_egress_tstamp;
            }

            // Inner packet: the IPv4 packet (Ethernet header and padding left out).
            hdr.ethernet.setInvalid();
            bit<16> inner = hdr.ipv4.total_len;
            if (inner > REPORT_INNER_MAX) {
                inner = REPORT_INNER_MAX;
            }
            bit<8> inner_words = (bit<8>)(inner >> 2);

            hdr.tr2_indiv.setValid();
            hdr.tr2_indiv.rep_type = TR2_REP_TYPE_INT;
            hdr.tr2_indiv.in_type = TR2_IN_TYPE_IPV4;
            hdr.tr2_indiv.report_length = 2 + md_words + inner_words;
            hdr.tr2_indiv.md_length = md_words;
            hdr.tr2_indiv.d = (meta.rpt_kind == RPT_DROP) ? 1w1 : 1w0;
            hdr.tr2_indiv.q = meta.rpt_q;
            hdr.tr2_indiv.f = meta.rpt_f;
            // I (TR v2.0 "Intermediate Report: a transit node sent this intermediate report for
            // INT-MD"): a queue report about an INT packet (F) from a switch that is not the flow's
            // sink carries the path so far.  A queue report of a packet without INT carries no
            // path (I 0); a drop is reported in ingress, before the sink is known: D tells it.
            hdr.tr2_indiv.i = (meta.rpt_kind == RPT_QUEUE && meta.rpt_f == 1) ? 1w1 : 1w0;
            hdr.tr2_indiv.rsvd = 0;

            // UDP payload = group 8 + indiv 4 + main 8 + metadata + inner.
            bit<16> payload = 20 + (((bit<16>)md_words) << 2) + (((bit<16>)inner_words) << 2);
            hdr.rpt_udp.len = 8 + payload;
            hdr.rpt_ipv4.total_len = 28 + payload;
            meta.rpt_trunc_len = 14 + 28 + (bit<32>)payload;
        }
    }
}

#endif
