// Congestion events: per-queue depth / hop-latency thresholds mark ECN CE and ask for a queue
// report (Q flag), limited by a per-queue quota that refills once the queue drains below a reset level.
#ifndef HOPWATCH_CONGESTION_EVENTS_P4
#define HOPWATCH_CONGESTION_EVENTS_P4

#include "int_types.p4"

control hw_congestion_events(inout hw_headers_t hdr, inout hw_meta_t meta, in int_hop_info_t hop) {
    // Queue reports sent in the current congestion episode, per queue slot (port * 8 + queue id).
    register<bit<16>>(HW_QUEUE_SLOTS) queue_report_used;

    bit<24> depth_threshold = 0;
    bit<32> latency_threshold = 0;
    bit<24> reset_threshold = 0;
    bit<16> quota = 0;
    bit<1>  mark_ecn = 0;
    bool    watched = false;

    // depth_threshold: queue occupancy at or above which the queue counts as congested (device
    // units: packets on BMv2); latency_threshold: hop latency likewise (device units: us on BMv2);
    // quota: queue reports allowed per episode; reset_threshold: occupancy below which the
    // episode ends and the quota refills; mark_ecn: 1 to set CE on ECT packets while congested.
    action set_queue_thresholds(bit<24> depth_threshold_, bit<32> latency_threshold_,
                                bit<16> quota_, bit<24> reset_threshold_, bit<1> mark_ecn_) {
        watched = true;
        depth_threshold = depth_threshold_;
        latency_threshold = latency_threshold_;
        quota = quota_;
        reset_threshold = reset_threshold_;
        mark_ecn = mark_ecn_;
    }
    table queue_thresholds {
        key = {
            hop.egress_port : exact;
            hop.queue_id    : exact;
        }
        actions = { set_queue_thresholds; NoAction; }
        default_action = NoAction();
        size = 1024;
    }

    apply {
        meta.congested = 0;
        meta.rpt_q = 0;
        queue_thresholds.apply();
        if (watched) {
            bit<32> slot = (((bit<32>)hop.egress_port) << 3) + (bit<32>)hop.queue_id[2:0];
            bit<16> used;
            queue_report_used.read(used, slot);
            if (hop.queue_occupancy >= depth_threshold || hop.hop_latency >= latency_threshold) {
                meta.congested = 1;
                if (mark_ecn == 1 && hdr.ipv4.isValid() && (hdr.ipv4.ecn == 1 || hdr.ipv4.ecn == 2)) {
                    hdr.ipv4.ecn = 3;
                }
                if (used < quota) {
                    meta.rpt_q = 1;
                    queue_report_used.write(slot, used + 1);
                }
            } else if (hop.queue_occupancy < reset_threshold) {
                queue_report_used.write(slot, 0);
            }
        }
    }
}

#endif
