// Per-switch INT configuration read by every egress fragment: node id, hw_id, port MTUs.
// Set from the control plane (see p4/cli/*.txt); the tables are tiny and change rarely.
#ifndef HOPWATCH_INT_CONFIG_P4
#define HOPWATCH_INT_CONFIG_P4

#include "int_types.p4"

control hw_int_config(inout hw_meta_t meta, in bit<16> egress_port) {
    action set_switch_id(bit<32> node_id, bit<6> hw_id) {
        meta.node_id = node_id;
        meta.hw_id = hw_id;
    }
    // Keyless: configure with table_set_default.
    table int_switch_id {
        actions = { set_switch_id; }
        default_action = set_switch_id(0, 0);
    }

    action set_mtu(bit<16> mtu) {
        meta.egress_mtu = mtu;
    }
    // IP MTU of each egress port; ports not listed get DEFAULT_MTU.
    table int_port_mtu {
        key = { egress_port: exact; }
        actions = { set_mtu; }
        default_action = set_mtu(DEFAULT_MTU);
        size = 512;
    }

    apply {
        int_switch_id.apply();
        int_port_mtu.apply();
    }
}

#endif
