// INT sink: decide on egress ports that leave the INT domain that this packet is reported, and
// remove INT (shim, MD header, stack) from the copy that is forwarded, restoring DSCP / UDP port.
#ifndef HOPWATCH_INT_SINK_P4
#define HOPWATCH_INT_SINK_P4

#include "int_types.p4"

// Egress, first pass: is this port a sink port for an INT packet?  Sets meta.int_sink and asks
// for an INT report (F).  The glue then clones the packet, INT intact, to the collector and
// has the INT removed from the forwarded copy (hw_int_strip).
control hw_int_sink(inout hw_headers_t hdr, inout hw_meta_t meta, in int_hop_info_t hop) {
    action int_set_sink() {
        meta.int_sink = 1;
    }
    // Egress ports where packets leave the INT domain (towards hosts).
    table int_sink_ports {
        key = { hop.egress_port : exact; }
        actions = { int_set_sink; NoAction; }
        default_action = NoAction();
        size = 512;
    }

    apply {
        meta.int_sink = 0;
        if (meta.int_ok == 1) {
            int_sink_ports.apply();
            if (meta.int_sink == 1) {
                meta.rpt_kind = RPT_INT;
                meta.rpt_f = 1;
            }
        }
    }
}

// Remove INT from a packet leaving the domain.
control hw_int_strip(inout hw_headers_t hdr, inout hw_meta_t meta) {
    apply {
        if (hdr.int_shim.isValid()) {
            bit<16> removed = (((bit<16>)hdr.int_shim.len) + 1) << 2;
            if (hdr.int_shim.npt == 1) {
                hdr.udp.dst_port = hdr.int_shim.npt_field;
            } else {
                hdr.ipv4.dscp = hdr.int_shim.npt_field[7:2];
            }
            hdr.ipv4.total_len = hdr.ipv4.total_len - removed;
            if (hdr.udp.isValid()) {
                hdr.udp.len = hdr.udp.len - removed;
                hdr.udp.checksum = 0;
            } else {
                meta.tcp_changed = 1;
            }
            hdr.int_shim.setInvalid();
            hdr.int_md.setInvalid();
            hdr.int_stack.setInvalid();
        }
    }
}

#endif
