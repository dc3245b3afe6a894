// hopwatch INT pipeline for v1model (BMv2 simple_switch): IPv4 routing plus the hopwatch fragments
// (INT source / transit / sink, congestion events, drop reports, Telemetry Report v2.0 to a collector).
#include <core.p4>
#include <v1model.p4>

#include "include/int_types.p4"
#include "include/int_parser.p4"
#include "include/int_config.p4"
#include "include/int_source.p4"
#include "include/int_transit.p4"
#include "include/int_sink.p4"
#include "include/congestion_events.p4"
#include "include/int_report.p4"

// Clone session that carries reports to the collector port (simple_switch_CLI mirroring_add).
#ifndef HW_REPORT_SESSION
#define HW_REPORT_SESSION 100
#endif
const bit<32> REPORT_SESSION = HW_REPORT_SESSION;

// BMv2 simple_switch values of standard_metadata.instance_type.
const bit<32> PKT_NORMAL = 0;
const bit<32> PKT_INGRESS_CLONE = 1;
const bit<32> PKT_EGRESS_CLONE = 2;
const bit<32> PKT_RECIRC = 4;

parser HwParser(packet_in pkt, out hw_headers_t hdr, inout hw_meta_t meta,
                inout standard_metadata_t std) {
    hw_int_parser() int_parser;
    state start {
        int_parser.apply(pkt, hdr, meta);
        transition accept;
    }
}

control HwVerifyChecksum(inout hw_headers_t hdr, inout hw_meta_t meta) {
    apply { }
}

control HwIngress(inout hw_headers_t hdr, inout hw_meta_t meta, inout standard_metadata_t std) {
    hw_int_watchlist() int_watchlist_ctl;

    action set_nhop(bit<48> dst_mac, bit<48> src_mac, bit<9> port) {
        hdr.ethernet.dst_addr = dst_mac;
        hdr.ethernet.src_addr = src_mac;
        std.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    action route_miss() {
        meta.drop = 1;
        meta.drop_reason = DROP_REASON_ROUTING_V4_MISS;
    }
    // Stand-in for the fabric's own forwarding.
    table ipv4_lpm {
        key = { hdr.ipv4.dst_addr : lpm; }
        actions = { set_nhop; route_miss; }
        default_action = route_miss();
        size = 1024;
    }

    action report_drop() {
        meta.rpt_kind = RPT_DROP;
        meta.rpt_q = 0;
        meta.rpt_f = meta.int_ok | meta.src_watch;
        meta.rpt_ingress_port = (bit<16>)std.ingress_port;
        meta.rpt_egress_port = 0xFFFF;
        meta.rpt_hop_latency = 0;
        meta.rpt_queue_id = 0;
        meta.rpt_queue_occupancy = 0;
        meta.rpt_ingress_tstamp = (bit<64>)std.ingress_global_timestamp;
        meta.rpt_egress_tstamp = 0;
        meta.rpt_drop_reason = meta.drop_reason;
        clone_preserving_field_list(CloneType.I2E, REPORT_SESSION, HW_FL_REPORT);
    }
    // Which drop reasons are reported to the collector (D flag).
    table drop_report {
        key = { meta.drop_reason : exact; }
        actions = { report_drop; NoAction; }
        default_action = NoAction();
        size = 256;
    }

    apply {
        if (std.instance_type == PKT_RECIRC && meta.strip_int == 1) {
            // Second pass of a sink packet: the report has gone; forward it again, INT removed in egress.
            std.egress_spec = (bit<9>)meta.strip_port;
        } else if (hdr.ipv4.isValid()) {
            meta.drop = 0;
            meta.drop_reason = DROP_REASON_UNKNOWN;
            meta.rpt_kind = RPT_NONE;
            if (hdr.ipv4.ttl <= 1) {
                meta.drop = 1;
                meta.drop_reason = DROP_REASON_IP_TTL_ZERO;
            } else {
                ipv4_lpm.apply();
            }
            int_watchlist_ctl.apply(hdr, meta, (bit<16>)std.ingress_port);
            if (meta.drop == 1) {
                drop_report.apply();
                mark_to_drop(std);
            }
        } else {
            mark_to_drop(std);
        }
    }
}

control HwEgress(inout hw_headers_t hdr, inout hw_meta_t meta, inout standard_metadata_t std) {
    hw_int_config() int_config;
    hw_int_source() int_source;
    hw_congestion_events() congestion;
    hw_int_sink() int_sink;
    hw_int_transit() int_transit;
    hw_int_strip() int_strip;
    hw_int_report() int_report;

    apply {
        int_config.apply(meta, (bit<16>)std.egress_port);
        if (meta.strip_int == 1) {
            // Second pass of a sink packet (BMv2 gives every packet coming from ingress the
            // instance type NORMAL, so the preserved flag is what tells this pass apart).
            int_strip.apply(hdr, meta);
        } else if (std.instance_type == PKT_NORMAL) {
            // BMv2 timestamps are microseconds; occupancy is in packets; one queue per port.
            int_hop_info_t hop;
            hop.ingress_port = (bit<16>)std.ingress_port;
            hop.egress_port = (bit<16>)std.egress_port;
            hop.hop_latency = (bit<32>)(std.egress_global_timestamp - std.ingress_global_timestamp);
            hop.queue_id = 0;
            hop.queue_occupancy = (bit<24>)std.deq_qdepth;
            hop.ingress_tstamp = (bit<64>)std.ingress_global_timestamp;
            hop.egress_tstamp = (bit<64>)std.egress_global_timestamp;
            hop.egress_tx_util = 0xFFFFFFFF;

            meta.rpt_kind = RPT_NONE;
            meta.rpt_f = 0;
            int_source.apply(hdr, meta);
            congestion.apply(hdr, meta, hop);
            int_sink.apply(hdr, meta, hop);
            int_transit.apply(hdr, meta, hop);

            if (meta.int_sink == 1 || meta.rpt_q == 1) {
                if (meta.int_sink == 0) {
                    meta.rpt_kind = RPT_QUEUE;
                    meta.rpt_f = meta.int_ok;
                }
                meta.rpt_ingress_port = hop.ingress_port;
                meta.rpt_egress_port = hop.egress_port;
                meta.rpt_hop_latency = hop.hop_latency;
                meta.rpt_queue_id = hop.queue_id;
                meta.rpt_queue_occupancy = hop.queue_occupancy;
                meta.rpt_ingress_tstamp = hop.ingress_tstamp;
                meta.rpt_egress_tstamp = hop.egress_tstamp;
                meta.rpt_drop_reason = 0;
                // The clone copies the headers as they are at the end of this pass: INT intact.
                clone_preserving_field_list(CloneType.E2E, REPORT_SESSION, HW_FL_REPORT);
            }
            if (meta.int_sink == 1) {
                // The forwarded copy must leave without INT: run it once more and strip then.
                meta.strip_int = 1;
                meta.strip_port = hop.egress_port;
                recirculate_preserving_field_list(HW_FL_RECIRC);
            }
        } else if (std.instance_type == PKT_EGRESS_CLONE || std.instance_type == PKT_INGRESS_CLONE) {
            if (meta.rpt_kind != RPT_NONE) {
                int_report.apply(hdr, meta);
                if (hdr.rpt_ethernet.isValid()) {
                    truncate(meta.rpt_trunc_len);
                } else {
                    mark_to_drop(std);
                }
            } else {
                mark_to_drop(std);
            }
        }
        if (meta.tcp_changed == 1) {
            meta.tcp_len = hdr.ipv4.total_len - 20;
        }
    }
}

control HwComputeChecksum(inout hw_headers_t hdr, inout hw_meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
        update_checksum(hdr.rpt_ipv4.isValid(),
            { hdr.rpt_ipv4.version, hdr.rpt_ipv4.ihl, hdr.rpt_ipv4.dscp, hdr.rpt_ipv4.ecn,
              hdr.rpt_ipv4.total_len, hdr.rpt_ipv4.identification, hdr.rpt_ipv4.flags,
              hdr.rpt_ipv4.frag_offset, hdr.rpt_ipv4.ttl, hdr.rpt_ipv4.protocol,
              hdr.rpt_ipv4.src_addr, hdr.rpt_ipv4.dst_addr },
            hdr.rpt_ipv4.hdr_checksum, HashAlgorithm.csum16);
        // INT over TCP: the INT headers are part of the TCP segment.  Full recompute over the
        // pseudo-header, the TCP header, the INT headers that are valid (BMv2 leaves invalid
        // ones out) and the payload.
        update_checksum_with_payload(hdr.tcp.isValid() && meta.tcp_changed == 1,
            { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, 8w0, hdr.ipv4.protocol, meta.tcp_len,
              hdr.tcp.src_port, hdr.tcp.dst_port, hdr.tcp.seq_no, hdr.tcp.ack_no,
              hdr.tcp.data_offset, hdr.tcp.res, hdr.tcp.flags, hdr.tcp.window, 16w0,
              hdr.tcp.urgent_ptr,
              hdr.int_shim, hdr.int_md,
              hdr.int_node_id, hdr.int_l1_ports, hdr.int_hop_latency, hdr.int_q_occupancy,
              hdr.int_ingress_tstamp, hdr.int_egress_tstamp, hdr.int_l2_ports,
              hdr.int_egress_tx_util, hdr.int_buffer, hdr.int_stack },
            hdr.tcp.checksum, HashAlgorithm.csum16);
    }
}

control HwDeparser(packet_out pkt, in hw_headers_t hdr) {
    apply {
        // A struct of headers is emitted in field order, valid headers only.
        pkt.emit(hdr);
    }
}

V1Switch(HwParser(), HwVerifyChecksum(), HwIngress(), HwEgress(), HwComputeChecksum(),
         HwDeparser()) main;
