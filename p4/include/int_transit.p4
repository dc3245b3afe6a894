// INT transit (also run by the source for its own hop): push this hop's metadata in bitmap order,
// decrement Remaining Hop Count, set E when it is exhausted and M when the MTU would be exceeded.
#ifndef HOPWATCH_INT_TRANSIT_P4
#define HOPWATCH_INT_TRANSIT_P4

#include "int_types.p4"

control hw_int_transit(inout hw_headers_t hdr, inout hw_meta_t meta, in int_hop_info_t hop) {
    apply {
        // The sink does not push: its own metadata goes into the report (int_report.p4).
        if (meta.int_ok == 1 && meta.int_sink == 0) {
            bit<16> mask = hdr.int_md.instruction_mask;
            bit<16> grow = ((bit<16>)hdr.int_md.hop_ml) << 2;
            if (hdr.int_md.remaining_hop_cnt == 0) {
                hdr.int_md.e = 1;
            } else if ((mask & ~INT_INS_SUPPORTED) != 0 || int_hop_words(mask) != hdr.int_md.hop_ml) {
                // Reserved or domain-specific instructions we cannot fill: the spec allows a hop
                // to add nothing, and then it must not decrement the hop count.
            } else if (hdr.ipv4.total_len + grow > meta.egress_mtu) {
                hdr.int_md.m = 1;
            } else {
                if ((mask & INT_INS_NODE_ID) != 0) {
                    hdr.int_node_id.setValid();
                    hdr.int_node_id.node_id = meta.node_id;
                }
                if ((mask & INT_INS_L1_PORTS) != 0) {
                    hdr.int_l1_ports.setValid();
                    hdr.int_l1_ports.ingress_port = hop.ingress_port;
                    hdr.int_l1_ports.egress_port = hop.egress_port;
                }
                if ((mask & INT_INS_HOP_LAT) != 0) {
                    hdr.int_hop_latency.setValid();
                    hdr.int_hop_latency.hop_latency = hop.hop_latency;
                }
                if ((mask & INT_INS_Q_OCC) != 0) {
                    hdr.int_q_occupancy.setValid();
                    hdr.int_q_occupancy.queue_id = hop.queue_id;
                    hdr.int_q_occupancy.queue_occupancy = hop.queue_occupancy;
                }
                if ((mask & INT_INS_IG_TSTAMP) != 0) {
                    hdr.int_ingress_tstamp.setValid();
                    hdr.int_ingress_tstamp.ingress_tstamp = hop.ingress_tstamp;
                }
                if ((mask & INT_INS_EG_TSTAMP) != 0) {
                    hdr.int_egress_tstamp.setValid();
                    hdr.int_egress_tstamp.egress_tstamp = hop.egress_tstamp;
                }
                if ((mask & INT_INS_L2_PORTS) != 0) {
                    // No L2 (logical) interfaces in this program: "unavailable" is all ones.
                    hdr.int_l2_ports.setValid();
                    hdr.int_l2_ports.ingress_port = 0xFFFFFFFF;
                    hdr.int_l2_ports.egress_port = 0xFFFFFFFF;
                }
                if ((mask & INT_INS_TX_UTIL) != 0) {
                    hdr.int_egress_tx_util.setValid();
                    hdr.int_egress_tx_util.egress_tx_util = hop.egress_tx_util;
                }
                if ((mask & INT_INS_BUFFER) != 0) {
                    // No shared-buffer statistics on this target.
                    hdr.int_buffer.setValid();
                    hdr.int_buffer.buffer_id = 0xFF;
                    hdr.int_buffer.buffer_occupancy = 0xFFFFFF;
                }
                hdr.int_md.remaining_hop_cnt = hdr.int_md.remaining_hop_cnt - 1;
                hdr.int_shim.len = hdr.int_shim.len + (bit<8>)hdr.int_md.hop_ml;
                hdr.ipv4.total_len = hdr.ipv4.total_len + grow;
                if (hdr.udp.isValid()) {
                    hdr.udp.len = hdr.udp.len + grow;
                    hdr.udp.checksum = 0;
                }
            }
            // Any change to the INT headers (push, E, M) changes the TCP checksum.
            if (hdr.tcp.isValid()) {
                meta.tcp_changed = 1;
            }
        }
    }
}

#endif
