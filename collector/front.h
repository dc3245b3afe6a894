/* The collector's front ends: how frames reach the workers.  Each returns 0 when the input ended or
 * a stop was requested and every sink was flushed, 1 on a runtime failure, 2 on bad usage. */
#ifndef HOPWATCH_FRONT_H
#define HOPWATCH_FRONT_H

#include <stddef.h>

#include "collector.h"

/* libpcap: a capture file (as fast as the sinks take it) or a live interface, one worker. */
int hw_pcap_front_run(struct hw_collector *c, char *err, size_t errlen);
/* DPDK: EAL from argv[0..eal_argc), every probed port, RSS over the worker lcores. */
int hw_dpdk_front_run(struct hw_collector *c, int eal_argc, char **argv, char *err, size_t errlen);

#endif
