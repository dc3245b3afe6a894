/* The collector's names source: the file `hopwatch-analyzer topology --names-out` writes (node and port
 * names by INT node id and port number), read at start and again whenever it changes, for /metrics labels. */
#ifndef HOPWATCH_NODE_NAMES_H
#define HOPWATCH_NODE_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct hw_node_names;

/* Read path (lines "node\tID\tNAME" and "port\tID\tPORT\tIFNAME", docs/topology.md).  NULL with err naming
 * the file, the line and what is wrong. */
struct hw_node_names *hw_node_names_open(const char *path, char *err, size_t errlen);
void hw_node_names_close(struct hw_node_names *n);
/* Hold the names for lookups: re-read the file first when it changed since the last read (a file that no
 * longer reads keeps the names held, and says why on stderr once per change).  NULL n: nothing. */
void hw_node_names_lock(struct hw_node_names *n);
void hw_node_names_unlock(struct hw_node_names *n);
/* Between lock and unlock: the node's or the port's name, NULL when the file names none (or n is NULL). */
const char *hw_node_names_node(const struct hw_node_names *n, uint32_t node_id);
const char *hw_node_names_port(const struct hw_node_names *n, uint32_t node_id, uint32_t port);

#endif
