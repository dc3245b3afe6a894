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

/* Shared-key authentication (both ends given the same key file): the listener sends each new connection a
 * HW_STREAM_CHALLENGE-byte random challenge; the sender waits for it, then sends frames of version
 * HW_STREAM_VERSION_AUTH, each followed by HW_STREAM_TAG bytes of HMAC-SHA256(key, challenge || header ||
 * records).  A frame of the other kind, or with a wrong tag, closes the connection and is counted: a peer
 * without the key can neither inject records nor replay another connection's frames. */
#define HW_STREAM_VERSION_AUTH 2
#define HW_STREAM_CHALLENGE 16
#define HW_STREAM_TAG 32
#define HW_STREAM_KEY_MAX 256
/* Read a key file: 16 to HW_STREAM_KEY_MAX bytes (a trailing newline is dropped).  0, or -1 with err naming
 * the file and what is wrong (missing, too short, too long, readable by others than its owner). */
int hw_stream_key_load(const char *path, uint8_t key[HW_STREAM_KEY_MAX], size_t *len, char *err, size_t errlen);

/* Addresses: "unix:/path/to.sock" or "tcp:HOST:PORT" (HOST may be an IPv4/IPv6 literal or name). */

/* Neither the sender nor the listener is thread-safe: use each from one thread. */
struct hw_stream_sender;
/* Create a sender that connects (non-blocking, retried on later sends) to addr. */
struct hw_stream_sender *hw_stream_sender_open(const char *addr, char *err, size_t errlen);
/* hw_stream_sender_open, authenticated with the key in key_path (NULL: none): the key file is read first, so
 * a bad one fails (err names it) before anything connects. */
struct hw_stream_sender *hw_stream_sender_open_keyed(const char *addr, const char *key_path, char *err, size_t errlen);
/* Authenticate every frame with key (len bytes, see above); call before the first send. */
void hw_stream_sender_set_key(struct hw_stream_sender *s, const uint8_t *key, size_t len);
/* Send one batch.  Never blocks: if the peer is absent or its socket buffer is full, the whole
 * batch is dropped and counted.  Returns 1 sent, 0 dropped.
 * Details: a connect is attempted at most once per 100 ms (CLOCK_MONOTONIC); batches are dropped
 * while there is no connection.  A frame goes out with one send(MSG_DONTWAIT | MSG_NOSIGNAL); if
 * the socket takes only part of it (still 1), the rest is kept and pushed by later calls, and new
 * batches are dropped until it has gone, so the reader never sees a torn frame.  Its records count
 * as sent once all of it has gone, or as dropped if the connection dies first.  A batch of more than
 * HW_STREAM_MAX_BATCH records goes out as several frames (1 only if all were sent); n = 0 sends
 * nothing.  The frame's sequence number counts frames put on the wire by this sender. */
int hw_stream_send(struct hw_stream_sender *s, const struct hw_record *r, size_t n);
/* Try, without blocking, to push the rest of a partly sent frame: 1 when nothing is pending.  Call
 * it from an idle tick so such a frame does not wait for the next batch. */
int hw_stream_sender_flush(struct hw_stream_sender *s);
/* Records wholly handed to the kernel; records and batches dropped.  Counters only grow. */
uint64_t hw_stream_sent_records(const struct hw_stream_sender *s);
uint64_t hw_stream_dropped_records(const struct hw_stream_sender *s);
uint64_t hw_stream_dropped_batches(const struct hw_stream_sender *s);
/* The last connect/send failure, naming the address ("" if none): for logs. */
const char *hw_stream_sender_error(const struct hw_stream_sender *s);
/* "stream ADDR" while its connects or sends fail, else NULL (any thread). */
const char *hw_stream_sender_down(const struct hw_stream_sender *s);
/* The end of sending: one last non-blocking flush, then a frame still pending is counted as dropped and
 * the connection closed, so that the counters read afterwards are final (sent + dropped = every record
 * given).  hw_stream_sender_close does the same. */
void hw_stream_sender_finish(struct hw_stream_sender *s);
/* One last non-blocking flush; a frame still pending is counted as dropped.  Frees s. */
void hw_stream_sender_close(struct hw_stream_sender *s);

struct hw_stream_listener;
/* tcp: connections one host (IP address) may hold open at once, so that one host cannot take all 64. */
#define HW_STREAM_MAX_PER_PEER 8
/* Listen on addr (unix: a stale socket file is replaced, while one another listener still answers on,
 * or a non-socket file, is an error; the file is removed on close if it is still this listener's; tcp
 * binds HOST:PORT, port 0 picks a free one).  Up to 64 senders at once, over tcp at most
 * HW_STREAM_MAX_PER_PEER from one host; more are closed when accepted (they retry later) and counted
 * (hw_stream_refused). */
struct hw_stream_listener *hw_stream_listen(const char *addr, char *err, size_t errlen);
/* hw_stream_listen, taking only frames authenticated with the key in key_path (NULL: none): the key file is
 * read first, so a bad one fails (err names it) before anything listens. */
struct hw_stream_listener *hw_stream_listen_keyed(const char *addr, const char *key_path, char *err, size_t errlen);
/* Accept only frames authenticated with key (len bytes, see above); call before the first receive. */
void hw_stream_listener_set_key(struct hw_stream_listener *l, const uint8_t *key, size_t len);
/* Connections closed for a frame that was not authenticated with the listener's key (or that was, when it
 * has none). */
uint64_t hw_stream_auth_failures(const struct hw_stream_listener *l);
/* Connections closed as they were accepted: the total, and in *per_peer (NULL allowed) those refused
 * because their host already held HW_STREAM_MAX_PER_PEER (the rest: all 64 taken). */
uint64_t hw_stream_refused(const struct hw_stream_listener *l, uint64_t *per_peer);
/* The address actually bound, e.g. "tcp:127.0.0.1:40123" after "tcp:127.0.0.1:0". */
const char *hw_stream_listener_address(const struct hw_stream_listener *l);
/* Wait up to timeout_ms for the next batch from any connected sender; fills out (capacity
 * HW_STREAM_MAX_BATCH) and returns the record count, 0 on timeout, -1 with err on a malformed
 * frame (that connection is closed, naming the problem).  timeout_ms < 0 waits without limit.  A
 * connection closed in the middle of a frame is also reported with -1; frames of 0 records are
 * skipped.  Senders are served in turn, so a busy one cannot starve the others. */
long hw_stream_receive(struct hw_stream_listener *l, struct hw_record *out, int timeout_ms, char *err, size_t errlen);

/* About the batch hw_stream_receive() returned last. */
struct hw_stream_batch_info {
	uint64_t seq;            /* the sender's frame sequence number */
	uint64_t dropped_before; /* records the sender had dropped before it */
	unsigned conn;           /* which connection (numbered in accept order, from 1) */
};
void hw_stream_last_batch(const struct hw_stream_listener *l, struct hw_stream_batch_info *info);
void hw_stream_listener_close(struct hw_stream_listener *l);

#ifdef __cplusplus
}
#endif
#endif
