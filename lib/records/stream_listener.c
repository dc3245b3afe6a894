/* Receiving side of the live record stream (stream.h): accepts any number of senders up to a limit,
 * reassembles frames per connection and closes a connection whose frame is malformed. */
#include <errno.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hopwatch/record_file.h"
#include "hopwatch/stream.h"
#include "sinks_internal.h"

#define MAX_CONNS 64
#define CONN_BUF (64u * 1024)

struct conn {
	int fd;
	int eof;     /* the peer closed; frames still buffered are delivered first */
	unsigned id; /* accept order, from 1 */
	size_t len, cap;
	uint8_t *buf;
	uint8_t challenge[HW_STREAM_CHALLENGE]; /* sent on accept when the listener has a key */
	struct sockaddr_storage peer;           /* tcp: the sender's address (its host counts, not its port) */
	char name[240];
};

struct hw_stream_listener {
	int lfd;
	int is_unix;
	char path[108];
	ino_t ino; /* the socket file this listener made (unix) */
	dev_t dev;
	char addr_text[192];
	unsigned accepted;
	unsigned next; /* round-robin start, so one busy sender cannot starve the others */
	int nconns;
	struct conn conns[MAX_CONNS];
	struct pollfd pfd[1 + MAX_CONNS];
	struct hw_stream_batch_info last;
	int auth;                 /* a key was set: only tagged frames (stream.h) */
	struct hw_frame_mac *mac; /* NULL with auth set: OpenSSL failed, every frame is refused */
	uint64_t auth_failures;
	uint64_t refused_per_peer, refused_full; /* connections closed when accepted (hw_stream_refused) */
};

static int listen_fd(struct hw_stream_listener *l, const char *addr, const struct hw_sock_addr *a, char *err,
                     size_t errlen)
{
	if (a->family == AF_UNIX) {
		struct stat st;
		if (lstat(a->path, &st) == 0) {
			if (!S_ISSOCK(st.st_mode)) {
				hw_errf(err, errlen, "listen %s: %s exists and is not a socket", addr, a->path);
				return -1;
			}
			/* A socket that answers belongs to a running listener: taking its path over would steal
			 * its stream (and remove its file at exit).  One that refuses is stale: replace it. */
			int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
			int live = probe >= 0 && connect(probe, (const struct sockaddr *)&a->ss, a->len) == 0;
			if (probe >= 0)
				close(probe);
			if (live) {
				hw_errf(err, errlen, "listen %s: another process is listening on %s", addr, a->path);
				return -1;
			}
			unlink(a->path);
		}
	}
	l->lfd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->lfd < 0) {
		hw_errf(err, errlen, "listen %s: socket: %s", addr, strerror(errno));
		return -1;
	}
	int one = 1;
	if (a->family != AF_UNIX)
		setsockopt(l->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l->lfd, (const struct sockaddr *)&a->ss, a->len) || listen(l->lfd, 64)) {
		hw_errf(err, errlen, "listen %s: %s", addr, strerror(errno));
		return -1;
	}
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct stat mine;
	if (a->family == AF_UNIX && stat(a->path, &mine) == 0)
		l->ino = mine.st_ino, l->dev = mine.st_dev; /* close removes the file only while it is this one */
	if (a->family == AF_UNIX || getsockname(l->lfd, (struct sockaddr *)&ss, &len))
		snprintf(l->addr_text, sizeof(l->addr_text), "%s", addr);
	else
		hw_sock_addr_text((struct sockaddr *)&ss, len, l->addr_text, sizeof(l->addr_text));
	return 0;
}

struct hw_stream_listener *hw_stream_listen(const char *addr, char *err, size_t errlen)
{
	struct hw_sock_addr a;
	if (hw_sock_addr_parse(addr, 1, &a, err, errlen))
		return NULL;
	struct hw_stream_listener *l = calloc(1, sizeof(*l));
	if (!l) {
		hw_errf(err, errlen, "listen %s: out of memory", addr);
		return NULL;
	}
	l->lfd = -1;
	if (listen_fd(l, addr, &a, err, errlen)) {
		if (l->lfd >= 0)
			close(l->lfd);
		free(l);
		return NULL;
	}
	if (a.family == AF_UNIX) {
		l->is_unix = 1;
		memcpy(l->path, a.path, sizeof(l->path));
	}
	return l;
}

const char *hw_stream_listener_address(const struct hw_stream_listener *l)
{
	return l->addr_text;
}

static void drop_conn(struct hw_stream_listener *l, int i)
{
	close(l->conns[i].fd);
	free(l->conns[i].buf);
	l->conns[i] = l->conns[--l->nconns];
}

/* Whether a and b are the same host (IPv4 or IPv6 address; ports aside). */
static int same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		               &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
	return 0;
}

/* tcp: connections open from the host of ss. */
static int conns_from(const struct hw_stream_listener *l, const struct sockaddr_storage *ss)
{
	int n = 0;
	for (int i = 0; i < l->nconns; i++)
		n += same_host(&l->conns[i].peer, ss);
	return n;
}

static void accept_all(struct hw_stream_listener *l)
{
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		memset(&ss, 0, sizeof(ss));
		int fd = accept4(l->lfd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return; /* EAGAIN, or an aborted connection: nothing to do */
		/* one host may not take every slot (issue 22: 64 idle connections locked the real collector out);
		 * a refused sender sees the close and retries later */
		if (!l->is_unix && conns_from(l, &ss) >= HW_STREAM_MAX_PER_PEER) {
			l->refused_per_peer++;
			close(fd);
			continue;
		}
		uint8_t *buf = l->nconns < MAX_CONNS ? malloc(CONN_BUF) : NULL;
		if (!buf) { /* full */
			l->refused_full++;
			close(fd);
			continue;
		}
		struct conn *c = &l->conns[l->nconns++];
		*c = (struct conn){.fd = fd, .id = ++l->accepted, .cap = CONN_BUF, .buf = buf, .peer = ss};
		/* the challenge goes out first, into an empty socket buffer: a short or failed send leaves the
		 * sender without it, and it gives up and reconnects */
		if (l->auth && (getrandom(c->challenge, sizeof(c->challenge), 0) != (ssize_t)sizeof(c->challenge) ||
		                send(fd, c->challenge, sizeof(c->challenge), MSG_DONTWAIT | MSG_NOSIGNAL) !=
		                    (ssize_t)sizeof(c->challenge))) {
			free(buf);
			close(fd);
			l->nconns--;
			continue;
		}
		char peer[sizeof(l->addr_text)];
		if (l->is_unix)
			snprintf(peer, sizeof(peer), "%s", l->addr_text);
		else
			hw_sock_addr_text((struct sockaddr *)&ss, len, peer, sizeof(peer));
		snprintf(c->name, sizeof(c->name), "%s (connection %u)", peer, c->id);
	}
}

/* The header of the frame at the start of c->buf, when it has arrived: 1 valid, 0 not yet, -1 bad. */
static int frame_header(const struct conn *c, int auth, struct hw_frame_hdr *h, char *err, size_t errlen)
{
	if (c->len < HW_STREAM_FRAME_HEADER)
		return 0;
	hw_frame_hdr_get(c->buf, h);
	if (h->magic != HW_STREAM_MAGIC)
		hw_errf(err, errlen, "stream from %s: bad magic 0x%08x (expected 0x%08x), connection closed", c->name,
		        h->magic, HW_STREAM_MAGIC);
	else if (h->version != HW_STREAM_VERSION && h->version != HW_STREAM_VERSION_AUTH)
		hw_errf(err, errlen, "stream from %s: frame version %u (expected %u), connection closed", c->name,
		        h->version, HW_STREAM_VERSION);
	else if (h->version != (auth ? HW_STREAM_VERSION_AUTH : HW_STREAM_VERSION))
		hw_errf(err, errlen, "stream from %s: %s, connection closed", c->name,
		        auth
		            ? "frame without authentication (the listener has a --stream-key; give the sender the same)"
		            : "authenticated frame (the sender has a --stream-key; give the listener the same)");
	else if (h->rec_size != HW_RECORD_SIZE)
		hw_errf(err, errlen, "stream from %s: record size %u (expected %u), connection closed", c->name,
		        h->rec_size, HW_RECORD_SIZE);
	else if (h->count > HW_STREAM_MAX_BATCH)
		hw_errf(err, errlen, "stream from %s: batch of %u records (at most %u), connection closed", c->name,
		        h->count, HW_STREAM_MAX_BATCH);
	else
		return 1;
	return -1;
}

/* A whole frame from connection i into out: its record count (a frame of 0 records is skipped and
 * gives 0), 0 when none is complete, -1 with err when the connection was closed for a bad frame. */
static long take_frame(struct hw_stream_listener *l, int i, struct hw_record *out, char *err, size_t errlen)
{
	struct conn *c = &l->conns[i];
	struct hw_frame_hdr h;
	int ok;
	while ((ok = frame_header(c, l->auth, &h, err, errlen)) == 1) {
		size_t body = HW_STREAM_FRAME_HEADER + (size_t)h.count * HW_RECORD_SIZE;
		size_t need = body + (l->auth ? HW_STREAM_TAG : 0);
		if (c->len < need)
			break;
		uint8_t tag[HW_STREAM_TAG];
		if (l->auth && (!l->mac || hw_frame_mac_tag(l->mac, c->challenge, c->buf, body, tag) ||
		                CRYPTO_memcmp(tag, c->buf + body, HW_STREAM_TAG))) {
			hw_errf(err, errlen,
			        "stream from %s: frame %llu not authenticated by the stream key, connection closed",
			        c->name, (unsigned long long)h.seq);
			l->auth_failures++;
			ok = -1;
			break;
		}
		for (uint32_t k = 0; k < h.count; k++)
			hw_record_from_le(c->buf + HW_STREAM_FRAME_HEADER + (size_t)k * HW_RECORD_SIZE, &out[k]);
		c->len -= need;
		memmove(c->buf, c->buf + need, c->len);
		if (h.count) {
			l->last =
			    (struct hw_stream_batch_info){.seq = h.seq, .dropped_before = h.dropped, .conn = c->id};
			return h.count;
		}
	}
	if (ok < 0) {
		if (l->auth && c->len >= HW_STREAM_FRAME_HEADER && hw_get_le16(c->buf + 4) != HW_STREAM_VERSION_AUTH)
			l->auth_failures++; /* an unauthenticated frame where only authenticated ones are taken */
		drop_conn(l, i);
		return -1;
	}
	if (c->eof) {
		if (c->len)
			hw_errf(err, errlen,
			        "stream from %s: closed in the middle of a frame (%zu bytes of it arrived)", c->name,
			        c->len);
		size_t torn = c->len;
		drop_conn(l, i);
		return torn ? -1 : 0;
	}
	return 0;
}

/* Read what connection i has; grows its buffer to the frame announced in a valid header. */
static void read_conn(struct conn *c, int auth)
{
	struct hw_frame_hdr h;
	if (frame_header(c, auth, &h, NULL, 0) == 1) {
		size_t need = HW_STREAM_FRAME_HEADER + (size_t)h.count * HW_RECORD_SIZE + (auth ? HW_STREAM_TAG : 0);
		if (need > c->cap) {
			uint8_t *nb = realloc(c->buf, need);
			if (!nb) {
				c->eof = 1;
				return;
			}
			c->buf = nb;
			c->cap = need;
		}
	}
	if (c->len == c->cap)
		return; /* a whole frame or more is buffered: take_frame consumes it first */
	ssize_t k = read(c->fd, c->buf + c->len, c->cap - c->len);
	if (k > 0)
		c->len += (size_t)k;
	else if (k == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
		c->eof = 1;
}

long hw_stream_receive(struct hw_stream_listener *l, struct hw_record *out, int timeout_ms, char *err, size_t errlen)
{
	uint64_t deadline = hw_mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;
	for (;;) {
		for (int n = 0; n < l->nconns; n++) {
			int i = (int)((l->next + (unsigned)n) % (unsigned)l->nconns);
			long got = take_frame(l, i, out, err, errlen);
			if (got) {
				l->next = (unsigned)i + 1;
				return got;
			}
		}
		int wait_ms = -1;
		if (timeout_ms >= 0) {
			uint64_t now = hw_mono_ns();
			wait_ms = now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
		}
		l->pfd[0] = (struct pollfd){.fd = l->lfd, .events = POLLIN};
		for (int i = 0; i < l->nconns; i++)
			l->pfd[1 + i] = (struct pollfd){.fd = l->conns[i].fd, .events = POLLIN};
		int nc = l->nconns;
		int rc = poll(l->pfd, (nfds_t)(1 + nc), wait_ms);
		if (rc < 0 && errno != EINTR) {
			hw_errf(err, errlen, "stream %s: poll: %s", l->addr_text, strerror(errno));
			return -1;
		}
		if (rc <= 0 && wait_ms == 0)
			return 0;
		for (int i = 0; i < nc; i++)
			if (l->pfd[1 + i].revents)
				read_conn(&l->conns[i], l->auth);
		if (l->pfd[0].revents)
			accept_all(l);
	}
}

void hw_stream_last_batch(const struct hw_stream_listener *l, struct hw_stream_batch_info *info)
{
	*info = l->last;
}

struct hw_stream_listener *hw_stream_listen_keyed(const char *addr, const char *key_path, char *err, size_t errlen)
{
	uint8_t key[HW_STREAM_KEY_MAX];
	size_t len = 0;
	if (key_path && hw_stream_key_load(key_path, key, &len, err, errlen))
		return NULL;
	struct hw_stream_listener *l = hw_stream_listen(addr, err, errlen);
	if (l && key_path)
		hw_stream_listener_set_key(l, key, len);
	return l;
}

void hw_stream_listener_set_key(struct hw_stream_listener *l, const uint8_t *key, size_t len)
{
	hw_frame_mac_free(l->mac);
	l->mac = hw_frame_mac_new(key, len);
	l->auth = 1;
}

uint64_t hw_stream_auth_failures(const struct hw_stream_listener *l)
{
	return l->auth_failures;
}

uint64_t hw_stream_refused(const struct hw_stream_listener *l, uint64_t *per_peer)
{
	if (per_peer)
		*per_peer = l->refused_per_peer;
	return l->refused_per_peer + l->refused_full;
}

void hw_stream_listener_close(struct hw_stream_listener *l)
{
	if (!l)
		return;
	while (l->nconns)
		drop_conn(l, l->nconns - 1);
	close(l->lfd);
	struct stat st; /* not a file another listener has put there since (after ours went stale) */
	if (l->is_unix && stat(l->path, &st) == 0 && st.st_ino == l->ino && st.st_dev == l->dev)
		unlink(l->path);
	hw_frame_mac_free(l->mac);
	free(l);
}
