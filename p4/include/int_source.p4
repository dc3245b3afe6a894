// INT source: an ingress watchlist that picks the flows to monitor, and the egress step that
// inserts the INT v2.1 shim and MD header (the source then pushes its own hop like a transit).
#ifndef HOPWATCH_INT_SOURCE_P4
#define HOPWATCH_INT_SOURCE_P4

#include "int_types.p4"

// Ingress: classify.  Watches IPv4 UDP flows (RoCEv2 included) and TCP flows without options;
// TCP flows can only be announced by DSCP (NPT 0).
control hw_int_watchlist(inout hw_headers_t hdr, inout hw_meta_t meta, in bit<16> ingress_port) {
    // ins_mask: INT instruction bitmap (bits outside INT_INS_SUPPORTED are dropped);
    // max_hops: initial Remaining Hop Count, counting this switch.
    action int_source_dscp(bit<16> ins_mask, bit<8> max_hops) {
        meta.src_watch = 1;
        meta.src_by_port = 0;
        meta.src_ins_mask = ins_mask & INT_INS_SUPPORTED;
        meta.src_max_hops = max_hops;
    }
    // Announce INT with the UDP destination port INT_UDP_PORT (build with -DHW_INT_UDP_PORT=N);
    // UDP only.
    action int_source_udp_port(bit<16> ins_mask, bit<8> max_hops) {
        meta.src_watch = 1;
        meta.src_by_port = 1;
        meta.src_ins_mask = ins_mask & INT_INS_SUPPORTED;
        meta.src_max_hops = max_hops;
    }
    action int_no_source() {
        meta.src_watch = 0;
    }
    table int_watchlist {
        key = {
            ingress_port        : ternary;
            hdr.ipv4.src_addr   : ternary;
            hdr.ipv4.dst_addr   : ternary;
            hdr.ipv4.protocol   : ternary;
            hdr.ipv4.dscp       : ternary;
            meta.l4_src_port    : ternary;
            meta.l4_dst_port    : ternary;   // 4791 for RoCEv2
        }
        actions = { int_source_dscp; int_source_udp_port; int_no_source; }
        default_action = int_no_source();
        size = 1024;
    }

    apply {
        meta.src_watch = 0;
        if (hdr.ipv4.isValid() && !hdr.int_shim.isValid()
            && (hdr.udp.isValid() || (hdr.tcp.isValid() && hdr.tcp.data_offset == 5))) {
            int_watchlist.apply();
            if (hdr.tcp.isValid() && meta.src_by_port == 1) {
                meta.src_watch = 0;
            }
        }
    }
}

// Egress: insert shim + MD header after the UDP or TCP header of a watched packet.
control hw_int_source(inout hw_headers_t hdr, inout hw_meta_t meta) {
    apply {
        if (meta.src_watch == 1 && !hdr.int_shim.isValid() && (hdr.udp.isValid() || hdr.tcp.isValid())) {
            bit<5> hop_ml = int_hop_words(meta.src_ins_mask);
            // Never start INT on a packet that could not carry the headers and our own hop.
            bit<16> grow = INT_SHIM_MD_BYTES + (((bit<16>)hop_ml) << 2);
            if (hdr.ipv4.total_len + grow <= meta.egress_mtu) {
                hdr.int_shim.setValid();
                hdr.int_shim.int_type = INT_TYPE_MD;
                hdr.int_shim.rsvd = 0;
                hdr.int_shim.len = 3;
                if (meta.src_by_port == 1) {
                    hdr.int_shim.npt = 1;                       // original UDP port kept in the shim
                    hdr.int_shim.npt_field = hdr.udp.dst_port;
                    hdr.udp.dst_port = INT_UDP_PORT;
                } else {
                    hdr.int_shim.npt = 0;                       // original DSCP kept in the shim
                    hdr.int_shim.npt_field = 8w0 ++ hdr.ipv4.dscp ++ 2w0;
                    hdr.ipv4.dscp = (hdr.ipv4.dscp & ~INT_DSCP_MASK) | (INT_DSCP & INT_DSCP_MASK);
                }

                hdr.int_md.setValid();
                hdr.int_md.ver = INT_VERSION_21;
                hdr.int_md.d = 0;
                hdr.int_md.e = 0;
                hdr.int_md.m = 0;
                hdr.int_md.rsvd = 0;
                hdr.int_md.hop_ml = hop_ml;
                hdr.int_md.remaining_hop_cnt = meta.src_max_hops;
                hdr.int_md.instruction_mask = meta.src_ins_mask;
                hdr.int_md.ds_id = 0;
                hdr.int_md.ds_instruction = 0;
                hdr.int_md.ds_flags = 0;

                hdr.ipv4.total_len = hdr.ipv4.total_len + INT_SHIM_MD_BYTES;
                if (hdr.udp.isValid()) {
                    hdr.udp.len = hdr.udp.len + INT_SHIM_MD_BYTES;
                    hdr.udp.checksum = 0;                       // IPv4: zero = no checksum
                } else {
                    meta.tcp_changed = 1;                       // checksum recomputed at deparse
                }
                meta.int_ok = 1;
            }
        }
    }
}

#endif
