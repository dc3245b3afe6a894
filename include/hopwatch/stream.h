/* The live record stream from the collector to the analyzer: framed batches of records over a
 * Unix or TCP stream socket.  The sender never blocks; a slow or absent reader loses whole batches,
 * and the sender counts them. */
#ifndef HOPWATCH_STREAM_H
#define HOPWATCH_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Frame (little-endian): u32 magic 0x48574253 ("HWBS"), u16 version 1, u16 record size,
 * u32 record count n, u32 reserved, u64 batch sequence number, u64 records dropped before this
 * batch (cumulative), then n record images (hw_record_to_le). */
#define HW_STREAM_MAGIC 0x48574253u
#define HW_STREAM_VERSION 1
#define HW_STREAM_FRAME_HEADER 32
#define HW_STREAM_MAX_BATCH 4096

/* Addresses: "unix:/path/to.sock" or "tcp:HOST:PORT" (HOST may be an IPv4/IPv6 literal or name). */

struct hw_stream_sender;
/* Create a sender that connects (non-blocking, retried on later sends) to addr. */
struct hw_stream_sender *hw_stream_sender_open(const char *addr, char *err, size_t errlen);
/* Send one batch.  Never blocks: if the peer is absent or its socket buffer is full, the whole
 * batch is dropped and counted.  Returns 1 sent, 0 dropped. */
int hw_stream_send(struct hw_stream_sender *s, const struct hw_record *r, size_t n);
uint64_t hw_stream_sent_records(const struct hw_stream_sender *s);
uint64_t hw_stream_dropped_records(const struct hw_stream_sender *s);
uint64_t hw_stream_dropped_batches(const struct hw_stream_sender *s);
void hw_stream_sender_close(struct hw_stream_sender *s);

struct hw_stream_listener;
/* Listen on addr (unix socket file is replaced; tcp binds HOST:PORT). */
struct hw_stream_listener *hw_stream_listen(const char *addr, char *err, size_t errlen);
/* Wait up to timeout_ms for the next batch from any connected sender; fills out (capacity
 * HW_STREAM_MAX_BATCH) and returns the record count, 0 on timeout, -1 with err on a malformed
 * frame (that connection is closed, naming the problem). */
long hw_stream_receive(struct hw_stream_listener *l, struct hw_record *out, int timeout_ms, char *err, size_t errlen);
void hw_stream_listener_close(struct hw_stream_listener *l);

#ifdef __cplusplus
}
#endif
#endif
