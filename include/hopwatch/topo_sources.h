/* Where the topology comes from: LLDP frames (capture files, live interfaces), lldpcli JSON dumps and
 * the local lldpd through liblldpctl.  Each adds what it learns to a struct hw_topo. */
#ifndef HOPWATCH_TOPO_SOURCES_H
#define HOPWATCH_TOPO_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* LLDP frames from a capture file (Ethernet, Linux SLL or SLL2) or, with live=1, an interface captured
 * for `seconds`.  Frames are grouped into segments: a file's frames (per interface index for SLL2);
 * the senders on one segment are each other's neighbours.  Expires links at the last frame's time. */
enum hw_topo_result hw_topo_load_pcap(struct hw_topo *t, const char *source, int live, double seconds,
                                      struct hw_topo_error *err);

/* One `lldpcli -f json0 show neighbors details` dump (or the `-f json` shape), optionally preceded by
 * `lldpcli -f json0 show chassis` in the same file.  The local system is that chassis, else the node
 * whose system name equals `local_name` (the file name without extension). `now` dates the facts. */
enum hw_topo_result hw_topo_load_lldpd_json(struct hw_topo *t, const char *path, const char *local_name, double now,
                                            struct hw_topo_error *err);
/* Every *.json file in a directory, in name order. */
enum hw_topo_result hw_topo_load_lldpd_dir(struct hw_topo *t, const char *dir, double now, struct hw_topo_error *err);
/* A directory as hw_topo_load_lldpd_dir, anything else as one dump (hw_topo_load_lldpd_json). */
enum hw_topo_result hw_topo_load_lldpd_path(struct hw_topo *t, const char *path, double now, struct hw_topo_error *err);

/* The local lldpd through liblldpctl (socket path NULL = default).  HW_TOPO_E_UNSUPPORTED when the
 * build has no liblldpctl. */
enum hw_topo_result hw_topo_load_lldpctl(struct hw_topo *t, const char *socket, double now, struct hw_topo_error *err);

#ifdef __cplusplus
}
#endif
#endif
