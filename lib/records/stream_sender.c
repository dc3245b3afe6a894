/* Sending side of the live record stream (stream.h): lazy, rate-limited non-blocking connects and
 * whole frames only; a batch the socket cannot take right now is dropped and counted, never queued. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hopwatch/record_file.h"
#include "log.h"
#include "hopwatch/stream.h"
#include "sinks_internal.h"

#define RECONNECT_NS 100000000u /* at most one connect attempt per 100 ms */
#define FRAME_MAX (HW_STREAM_FRAME_HEADER + HW_STREAM_MAX_BATCH * HW_RECORD_SIZE + HW_STREAM_TAG)

struct hw_stream_sender {
	struct hw_sock_addr addr;
	char addr_text[256];
	int fd;         /* -1 when not connected */
	int connecting; /* non-blocking connect still in progress */
	int attempted;  /* a connect was tried at last_attempt_ns */
	uint64_t last_attempt_ns;
	uint64_t seq; /* frames put on the wire so far */
	uint64_t sent_recs, dropped_recs, dropped_batches;
	/* A frame the socket took only part of: frame[pend_off .. pend_len) is still to go.  New
	 * batches are dropped until it has drained, so the peer never sees a torn frame. */
	size_t pend_off, pend_len;
	uint32_t pend_recs;
	int auth;                 /* a key was set */
	struct hw_frame_mac *mac; /* with a key: frames are tagged (stream.h) */
	uint8_t challenge[HW_STREAM_CHALLENGE];
	size_t challenge_got;  /* bytes of this connection's challenge read so far */
	uint64_t connected_ns; /* when this connection was made (the challenge is due within a second) */
	char last_err[320];
	struct hw_peer_log peer; /* down and back lines */
	uint8_t frame[FRAME_MAX];
};

static void set_err(struct hw_stream_sender *s, const char *what, int e)
{
	snprintf(s->last_err, sizeof(s->last_err), "%s %s: %s", what, s->addr_text, strerror(e));
}

static void drop(struct hw_stream_sender *s, size_t n)
{
	s->dropped_batches++;
	s->dropped_recs += n;
}

static void disconnect(struct hw_stream_sender *s, const char *what, int e)
{
	set_err(s, what, e);
	if (e) /* not our own close */
		hw_peer_failed(&s->peer, 1, s->last_err);
	close(s->fd);
	s->fd = -1;
	s->connecting = 0;
	s->challenge_got = 0;
	s->connected_ns = 0;
	if (s->pend_len) { /* the peer never gets the rest of that frame */
		drop(s, s->pend_recs);
		s->pend_len = s->pend_off = 0;
		s->pend_recs = 0;
	}
}

struct hw_stream_sender *hw_stream_sender_open(const char *addr, char *err, size_t errlen)
{
	struct hw_sock_addr a;
	if (hw_sock_addr_parse(addr, 0, &a, err, errlen))
		return NULL;
	struct hw_stream_sender *s = calloc(1, sizeof(*s));
	if (!s) {
		hw_errf(err, errlen, "stream sender for %s: out of memory", addr);
		return NULL;
	}
	s->addr = a;
	s->fd = -1;
	snprintf(s->addr_text, sizeof(s->addr_text), "%s", addr);
	char peer[sizeof(s->peer.peer)];
	snprintf(peer, sizeof(peer), "stream %.180s", addr);
	hw_peer_log_init(&s->peer, peer, "connect");
	return s;
}

static void start_connect(struct hw_stream_sender *s)
{
	uint64_t now = hw_mono_ns();
	if (s->attempted && now - s->last_attempt_ns < RECONNECT_NS)
		return;
	s->attempted = 1;
	s->last_attempt_ns = now;
	s->fd = socket(s->addr.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		set_err(s, "socket for", errno);
		return;
	}
	if (s->addr.family == AF_UNIX) {
		int sz = 2 * FRAME_MAX; /* best effort: the kernel caps it at wmem_max */
		setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	} else {
		int one = 1;
		setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	if (connect(s->fd, (const struct sockaddr *)&s->addr.ss, s->addr.len) == 0)
		return;
	if (errno == EINPROGRESS) {
		s->connecting = 1;
		return;
	}
	disconnect(s, "connect", errno);
}

/* 1 when connected; otherwise starts or checks a connect without waiting. */
static int ready(struct hw_stream_sender *s)
{
	if (s->fd < 0)
		start_connect(s);
	if (s->fd < 0)
		return 0;
	if (s->connecting) {
		struct pollfd p = {.fd = s->fd, .events = POLLOUT};
		if (poll(&p, 1, 0) <= 0)
			return 0;
		int e = 0;
		socklen_t len = sizeof(e);
		if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &e, &len) || e) {
			disconnect(s, "connect", e ? e : errno);
			return 0;
		}
		s->connecting = 0;
	}
	if (!s->connected_ns)
		s->connected_ns = hw_mono_ns();
	while (s->mac && s->challenge_got < HW_STREAM_CHALLENGE) { /* the listener speaks first */
		ssize_t k =
		    recv(s->fd, s->challenge + s->challenge_got, HW_STREAM_CHALLENGE - s->challenge_got, MSG_DONTWAIT);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (hw_mono_ns() - s->connected_ns < 1000000000u)
				return 0;
			disconnect(
			    s, "no authentication challenge within 1 s (is --stream-key given to the listener?) from",
			    ETIMEDOUT);
			return 0;
		}
		if (k <= 0) { /* closed without a challenge: a listener without the key, or not hopwatch */
			disconnect(s, "no authentication challenge from", k < 0 ? errno : ECONNRESET);
			return 0;
		}
		s->challenge_got += (size_t)k;
	}
	hw_peer_ok(&s->peer);
	return 1;
}

/* Push what is left of a partly sent frame; 1 when nothing is pending any more. */
static int drain(struct hw_stream_sender *s)
{
	while (s->pend_len) {
		ssize_t k = send(s->fd, s->frame + s->pend_off, s->pend_len - s->pend_off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (k < 0) {
			disconnect(s, "send to", errno);
			return 1;
		}
		s->pend_off += (size_t)k;
		if (s->pend_off == s->pend_len) {
			s->sent_recs += s->pend_recs;
			s->pend_len = s->pend_off = 0;
			s->pend_recs = 0;
		}
	}
	return 1;
}

static int send_frame(struct hw_stream_sender *s, const struct hw_record *r, uint32_t n)
{
	if ((s->auth && !s->mac) || !ready(s) || !drain(s) || s->fd < 0) {
		drop(s, n);
		return 0;
	}
	size_t len = HW_STREAM_FRAME_HEADER + (size_t)n * HW_RECORD_SIZE;
	hw_frame_hdr_put(s->frame, s->mac ? HW_STREAM_VERSION_AUTH : HW_STREAM_VERSION, n, s->seq, s->dropped_recs);
	for (uint32_t i = 0; i < n; i++)
		hw_record_to_le(&r[i], s->frame + HW_STREAM_FRAME_HEADER + (size_t)i * HW_RECORD_SIZE);
	if (s->mac) {
		hw_frame_mac_tag(s->mac, s->challenge, s->frame, len, s->frame + len);
		len += HW_STREAM_TAG;
	}
	ssize_t k;
	do
		k = send(s->fd, s->frame, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (k < 0 && errno == EINTR);
	if (k < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			disconnect(s, "send to", errno);
		drop(s, n);
		return 0;
	}
	s->seq++;
	if ((size_t)k == len) {
		s->sent_recs += n;
	} else { /* the rest goes out on later calls, before any new frame */
		s->pend_off = (size_t)k;
		s->pend_len = len;
		s->pend_recs = n;
	}
	return 1;
}

int hw_stream_send(struct hw_stream_sender *s, const struct hw_record *r, size_t n)
{
	int all = 1;
	while (n) {
		uint32_t chunk = n > HW_STREAM_MAX_BATCH ? HW_STREAM_MAX_BATCH : (uint32_t)n;
		all &= send_frame(s, r, chunk);
		r += chunk;
		n -= chunk;
	}
	return all;
}

int hw_stream_sender_flush(struct hw_stream_sender *s)
{
	if (!s->pend_len)
		return 1;
	return drain(s) && !s->pend_len;
}

const char *hw_stream_sender_down(const struct hw_stream_sender *s)
{
	return hw_peer_down_name(&s->peer);
}

const char *hw_stream_sender_error(const struct hw_stream_sender *s)
{
	return s->last_err;
}

uint64_t hw_stream_sent_records(const struct hw_stream_sender *s)
{
	return s->sent_recs;
}

uint64_t hw_stream_dropped_records(const struct hw_stream_sender *s)
{
	return s->dropped_recs;
}

uint64_t hw_stream_dropped_batches(const struct hw_stream_sender *s)
{
	return s->dropped_batches;
}

struct hw_stream_sender *hw_stream_sender_open_keyed(const char *addr, const char *key_path, char *err, size_t errlen)
{
	uint8_t key[HW_STREAM_KEY_MAX];
	size_t len = 0;
	if (key_path && hw_stream_key_load(key_path, key, &len, err, errlen))
		return NULL;
	struct hw_stream_sender *s = hw_stream_sender_open(addr, err, errlen);
	if (s && key_path)
		hw_stream_sender_set_key(s, key, len);
	return s;
}

void hw_stream_sender_set_key(struct hw_stream_sender *s, const uint8_t *key, size_t len)
{
	hw_frame_mac_free(s->mac);
	s->mac = hw_frame_mac_new(key, len);
	if (!s->mac) /* no MAC from OpenSSL: send nothing rather than unauthenticated frames */
		snprintf(s->last_err, sizeof(s->last_err), "stream %s: cannot set up HMAC-SHA256", s->addr_text);
	s->auth = 1;
}

void hw_stream_sender_finish(struct hw_stream_sender *s)
{
	if (s->fd >= 0) {
		hw_stream_sender_flush(s);
		if (s->fd >= 0)
			disconnect(s, "close", 0);
	}
}

void hw_stream_sender_close(struct hw_stream_sender *s)
{
	if (!s)
		return;
	hw_stream_sender_finish(s);
	hw_frame_mac_free(s->mac);
	free(s);
}
