// Parser fragment: Ethernet / IPv4 / UDP or TCP, then INT v2.1 (shim, MD header, stack) when the
// packet announces it by DSCP or UDP port, exactly as the collector's detection settings do.
#ifndef HOPWATCH_INT_PARSER_P4
#define HOPWATCH_INT_PARSER_P4

#include "int_types.p4"

// Architecture-neutral: a target's parser applies it as a sub-parser.
parser hw_int_parser(packet_in pkt, out hw_headers_t hdr, inout hw_meta_t meta) {
    state start {
        meta.int_ok = 0;
        meta.l4_src_port = 0;
        meta.l4_dst_port = 0;
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        // No IP options, no fragments: INT sits right after a 20 B IPv4 header.
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (5, 0, IP_PROTO_UDP): parse_udp;
            (5, 0, IP_PROTO_TCP): parse_tcp;
            default: accept;
        }
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        meta.l4_src_port = hdr.udp.src_port;
        meta.l4_dst_port = hdr.udp.dst_port;
        transition select(hdr.ipv4.dscp, hdr.udp.dst_port) {
#if HW_INT_DSCP_MASK != 0
            (INT_DSCP &&& INT_DSCP_MASK, _): parse_int_shim;
#endif
#if HW_INT_UDP_PORT != 0
            (_, INT_UDP_PORT): parse_int_shim;
#endif
            default: accept;
        }
    }

    state parse_tcp {
        pkt.extract(hdr.tcp);
        meta.l4_src_port = hdr.tcp.src_port;
        meta.l4_dst_port = hdr.tcp.dst_port;
        // INT over TCP is placed after a TCP header without options.
        transition select(hdr.ipv4.dscp, hdr.tcp.data_offset) {
#if HW_INT_DSCP_MASK != 0
            (INT_DSCP &&& INT_DSCP_MASK, 5): parse_int_shim;
#endif
            default: accept;
        }
    }

    state parse_int_shim {
        pkt.extract(hdr.int_shim);
        transition select(hdr.int_shim.int_type) {
            INT_TYPE_MD: parse_int_md;
            default: accept;
        }
    }

    state parse_int_md {
        pkt.extract(hdr.int_md);
        // shim.len counts the 3 words of the MD header plus the stack.
        transition select(hdr.int_md.ver, hdr.int_shim.len) {
            (INT_VERSION_21, 3): mark_int_ok;                // no hop has pushed metadata yet
            (INT_VERSION_21, 0 &&& 0xFC): accept;           // len 0..2: malformed, leave it alone
            (INT_VERSION_21, _): parse_int_stack;
            default: accept;
        }
    }

    state parse_int_stack {
        pkt.extract(hdr.int_stack, ((bit<32>)(hdr.int_shim.len - 3)) << 5);
        transition mark_int_ok;
    }

    state mark_int_ok {
        meta.int_ok = 1;
        transition accept;
    }
}

#endif
