/* The /metrics endpoint shared by the collector and the analyzer: libmicrohttpd in its own thread calls
 * the owner's render function on each GET /metrics, so scrapes never run on the owner's fast path; it can
 * also serve the SVG and CSV files of one directory at /svg/FILE (the analyzer's graphs). */
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hopwatch/metrics_http.h"
#include "web_config.h"

/* One rendered /metrics text, shared by every response that sends it (issue 22 item 4: rendered whole per
 * connection, 12 slow readers of a 153 MB text took the collector to 1.99 GB).  Freed with its last
 * reference. */
struct snapshot {
	char *buf;
	size_t len;
	unsigned refs;      /* responses sending it */
	struct timespec at; /* CLOCK_MONOTONIC, when its rendering ended */
	struct hw_metrics_http *server;
};

struct hw_metrics_http {
	struct MHD_Daemon *d;
	hw_metrics_render_fn render;
	void *arg;
	/* The newest snapshot while a response still sends it (NULL once none does), reused by a GET /metrics
	 * within HW_METRICS_HTTP_SHARE_MS of its rendering's end: concurrent scrapes share one text, a scrape after
	 * the others finished renders afresh.  The lock keeps refs right should libmicrohttpd ever call from
	 * more than one thread. */
	pthread_mutex_t lock;
	struct snapshot *snap;
	unsigned long renders;          /* snapshots rendered (hw_metrics_http_renders) */
	char dir[1024];                 /* served at /svg/, "" = none */
	hw_metrics_http_route_fn route; /* NULL = none */
	/* the server's own messages, at most one per HW_METRICS_HTTP_LOG_S (a flood of refused connections
	 * wrote 30 MB of log): when the last one was printed, how many were left out since */
	struct timespec log_last;
	unsigned long log_skipped;
};

/* Access to every server of the process (hw_metrics_http_secure): set once before the first start. */
struct user {
	char *name, *hash; /* hash: crypt(3) text, "$2b$..." or "$5$..." */
};
static struct {
	struct user *users; /* NULL = no authentication */
	size_t n_users;
	char *cert, *key; /* PEM text, NULL = plain HTTP */
	atomic_ulong unauthorized;
} sec;

/* The whole of a small file as a string; NULL with errno set. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			if (cap >= (1u << 20)) { /* a certificate, a key or a user list, never a MiB */
				errno = EFBIG;
				break;
			}
			char *nb = realloc(buf, cap = cap ? cap * 2 : 8192);
			if (!nb)
				break;
			buf = nb;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (!n) {
			int bad = ferror(f);
			fclose(f);
			if (bad) {
				free(buf);
				errno = EIO;
				return NULL;
			}
			buf[len] = 0;
			return buf;
		}
	}
	int e = errno;
	fclose(f);
	free(buf);
	errno = e;
	return NULL;
}

/* A hash crypt(3) can check: bcrypt ($2a$, $2b$, $2y$, what htpasswd -B writes) or SHA-256 crypt ($5$). */
static int known_hash(const char *h)
{
	return !strncmp(h, "$2a$", 4) || !strncmp(h, "$2b$", 4) || !strncmp(h, "$2y$", 4) || !strncmp(h, "$5$", 3);
}

/* One user with the crypt(3) hash: where names the place in a file, for the message when the hash is not one
 * crypt(3) can check.  0, or -1 with err. */
static int add_user(const char *name, const char *hash, const char *where, char *err, size_t errlen)
{
	if (!known_hash(hash)) {
		snprintf(err, errlen, "%s: expected a bcrypt ($2y$, htpasswd -B) or SHA-256 crypt ($5$) hash", where);
		return -1;
	}
	struct user *nu = realloc(sec.users, (sec.n_users + 1) * sizeof(*nu));
	if (!nu) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sec.users = nu;
	nu[sec.n_users].name = strdup(name);
	nu[sec.n_users].hash = strdup(hash);
	if (!nu[sec.n_users].name || !nu[sec.n_users].hash) {
		free(nu[sec.n_users].name);
		free(nu[sec.n_users].hash);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sec.n_users++;
	return 0;
}

/* The user file: "user:HASH" lines; blank lines and lines starting with # are skipped. */
static int load_users(const char *path, char *err, size_t errlen)
{
	char *text = slurp(path);
	if (!text) {
		snprintf(err, errlen, "http auth file '%s': %s", path, strerror(errno));
		return -1;
	}
	unsigned lineno = 0;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		size_t n = strlen(line);
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		char *colon = strchr(line, ':'), where[1200];
		snprintf(where, sizeof(where), "http auth file '%s' line %u", path, lineno);
		if (!colon || colon == line) {
			snprintf(err, errlen,
			         "%s: expected USER:HASH with a bcrypt ($2y$, htpasswd -B) or SHA-256 crypt ($5$) hash",
			         where);
			free(text);
			return -1;
		}
		*colon = 0;
		if (add_user(line, colon + 1, where, err, errlen)) {
			free(text);
			return -1;
		}
	}
	free(text);
	if (!sec.n_users) {
		snprintf(err, errlen, "http auth file '%s': no USER:HASH line", path);
		return -1;
	}
	return 0;
}

/* The PEM certificate (chain) and key, both or neither.  0, or -1 with err. */
static int load_tls(const char *cert_file, const char *key_file, char *err, size_t errlen)
{
	if (!cert_file != !key_file) {
		snprintf(err, errlen, "TLS needs both a certificate and a key (--tls-cert and --tls-key)");
		return -1;
	}
	if (!cert_file)
		return 0;
	if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		snprintf(err, errlen, "TLS certificate '%s': this libmicrohttpd was built without TLS", cert_file);
		return -1;
	}
	if (!(sec.cert = slurp(cert_file))) {
		snprintf(err, errlen, "TLS certificate '%s': %s", cert_file, strerror(errno));
		return -1;
	}
	if (!(sec.key = slurp(key_file))) {
		snprintf(err, errlen, "TLS key '%s': %s", key_file, strerror(errno));
		return -1;
	}
	if (!strstr(sec.cert, "-----BEGIN CERTIFICATE-----")) {
		snprintf(err, errlen, "TLS certificate '%s': not a PEM certificate", cert_file);
		return -1;
	}
	if (!strstr(sec.key, "PRIVATE KEY-----")) {
		snprintf(err, errlen, "TLS key '%s': not a PEM private key", key_file);
		return -1;
	}
	return 0;
}

int hw_metrics_http_secure(const char *auth_file, const char *cert_file, const char *key_file, char *err, size_t errlen)
{
	if (!cert_file != !key_file) {
		snprintf(err, errlen, "TLS needs both a certificate and a key (--tls-cert and --tls-key)");
		return -1;
	}
	if (auth_file && load_users(auth_file, err, errlen))
		return -1;
	return load_tls(cert_file, key_file, err, errlen);
}

int hw_metrics_http_web_config(const char *path, char *err, size_t errlen)
{
	if (sec.users || sec.cert) {
		snprintf(err, errlen,
		         "--web-config '%s': --http-auth, --tls-cert and --tls-key are given too: use the one or the "
		         "others",
		         path);
		return -1;
	}
	struct hw_web_config wc;
	if (hw_web_config_read(path, &wc, err, errlen))
		return -1;
	int rc = 0;
	for (size_t i = 0; !rc && i < wc.n_users; i++) {
		char where[1200];
		snprintf(where, sizeof(where), "web config '%s' basic_auth_users '%.100s'", path, wc.users[i].name);
		rc = add_user(wc.users[i].name, wc.users[i].hash, where, err, errlen);
	}
	if (!rc)
		rc = load_tls(wc.cert_file, wc.key_file, err, errlen);
	hw_web_config_free(&wc);
	return rc;
}

unsigned long hw_metrics_http_unauthorized(void)
{
	return atomic_load(&sec.unauthorized);
}

/* Whether the request carries the password of a user of the file (always when there is no file).  One
 * crypt(3) per request: a scrape every few seconds costs a bcrypt check each; an unknown user is checked
 * against the first user's hash so that both take as long. */
static int authorized(struct MHD_Connection *conn)
{
	if (!sec.users)
		return 1;
	char *pass = NULL;
	char *user = MHD_basic_auth_get_username_password(conn, &pass);
	int ok = 0;
	if (user && pass) {
		const struct user *u = &sec.users[0];
		int known = 0;
		for (size_t i = 0; i < sec.n_users; i++)
			if (!strcmp(sec.users[i].name, user)) {
				u = &sec.users[i];
				known = 1;
				break;
			}
		/* crypt_rn, libxcrypt's: crypt_r is intercepted by ASan, whose interceptor then finds no libcrypt
		 * (--as-needed dropped it) and calls NULL; crypt_rn also says NULL on failure, not "*0" */
		struct crypt_data *cd = calloc(1, sizeof(*cd));
		const char *h = cd ? crypt_rn(pass, u->hash, cd, (int)sizeof(*cd)) : NULL;
		size_t hl = strlen(u->hash);
		if (h && strlen(h) == hl) {
			unsigned char diff = 0;
			for (size_t i = 0; i < hl; i++)
				diff |= (unsigned char)(h[i] ^ u->hash[i]);
			ok = known && !diff;
		}
		free(cd);
	}
	if (user)
		MHD_free(user);
	if (pass)
		MHD_free(pass);
	return ok;
}

struct hw_metrics_http_request {
	struct MHD_Connection *conn;
};

const char *hw_metrics_http_query(const struct hw_metrics_http_request *q, const char *key)
{
	return MHD_lookup_connection_value(q->conn, MHD_GET_ARGUMENT_KIND, key);
}

/* The owner's route, when it answers url; NULL when not. */
static struct MHD_Response *route_response(const struct hw_metrics_http *s, struct MHD_Connection *conn,
                                           const char *url, unsigned *status)
{
	struct hw_metrics_http_request q = {conn};
	struct hw_metrics_http_reply rep = {NULL, 0, "text/plain; charset=utf-8", MHD_HTTP_OK};
	if (!s->route || !s->route(s->arg, url, &q, &rep))
		return NULL;
	struct MHD_Response *r = MHD_create_response_from_buffer(rep.len, rep.body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(rep.body);
		return NULL;
	}
	MHD_add_response_header(r, "Content-Type", rep.type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	*status = rep.status;
	return r;
}

#define HW_METRICS_HTTP_LOG_S 10

/* libmicrohttpd's error log (its own thread), rate-limited. */
static void http_log(void *cls, const char *fmt, va_list ap)
{
	struct hw_metrics_http *s = cls;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (s->log_last.tv_sec && now.tv_sec - s->log_last.tv_sec < HW_METRICS_HTTP_LOG_S) {
		s->log_skipped++;
		return;
	}
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	size_t n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = 0;
	if (s->log_skipped)
		fprintf(stderr, "metrics http: %s (%lu more messages in the last %d s not shown)\n", msg,
		        s->log_skipped, HW_METRICS_HTTP_LOG_S);
	else
		fprintf(stderr, "metrics http: %s\n", msg);
	s->log_last = now;
	s->log_skipped = 0;
}

/* GET /svg/NAME: the file NAME of the directory when NAME is a plain file name ending in .svg or .csv;
 * NULL when not (404). */
static struct MHD_Response *file_response(const struct hw_metrics_http *s, const char *name)
{
	size_t n = strlen(name);
	if (!s->dir[0] || !n || name[0] == '.' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                 "0123456789._-") != n)
		return NULL;
	const char *type = n > 4 && !strcmp(name + n - 4, ".svg")   ? "image/svg+xml"
	                   : n > 4 && !strcmp(name + n - 4, ".csv") ? "text/csv; charset=utf-8"
	                                                            : NULL;
	char path[1400];
	if (!type || (size_t)snprintf(path, sizeof(path), "%s/%s", s->dir, name) >= sizeof(path))
		return NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)st.st_size, fd); /* closes fd */
	if (r)
		MHD_add_response_header(r, "Content-Type", type);
	return r;
}

/* A response that sent x is destroyed: x is freed with its last one. */
static void snap_free_cb(void *cls)
{
	struct snapshot *x = cls;
	struct hw_metrics_http *s = x->server;
	pthread_mutex_lock(&s->lock);
	int last = !--x->refs;
	if (last && s->snap == x)
		s->snap = NULL;
	pthread_mutex_unlock(&s->lock);
	if (last) {
		free(x->buf);
		free(x);
	}
}

/* libmicrohttpd pulls the body through this: a copy of the shared text from pos, as much as fits. */
static ssize_t snap_read_cb(void *cls, uint64_t pos, char *buf, size_t max)
{
	const struct snapshot *x = cls;
	if (pos >= x->len)
		return MHD_CONTENT_READER_END_OF_STREAM;
	size_t n = x->len - (size_t)pos < max ? x->len - (size_t)pos : max;
	memcpy(buf, x->buf + pos, n);
	return (ssize_t)n;
}

static long ms_since(const struct timespec *a, const struct timespec *b)
{
	return (long)(b->tv_sec - a->tv_sec) * 1000 + (b->tv_nsec - a->tv_nsec) / 1000000;
}

/* The snapshot a GET /metrics sends, with a reference for its response: the newest when another response
 * still sends it and it is young, else a new rendering.  NULL when out of memory. */
static struct snapshot *snap_get(struct hw_metrics_http *s)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&s->lock);
	struct snapshot *x = s->snap;
	if (x && ms_since(&x->at, &now) < HW_METRICS_HTTP_SHARE_MS) {
		x->refs++;
		pthread_mutex_unlock(&s->lock);
		return x;
	}
	pthread_mutex_unlock(&s->lock);
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	FILE *f = open_memstream(&x->buf, &x->len);
	if (!f) {
		free(x);
		return NULL;
	}
	s->render(s->arg, f);
	if (sec.users) /* the server's own series, after the owner's */
		fprintf(
		    f,
		    "# HELP hopwatch_http_unauthorized_total HTTP requests refused with 401: no or wrong credentials "
		    "(--http-auth).\n# TYPE hopwatch_http_unauthorized_total counter\n"
		    "hopwatch_http_unauthorized_total %lu\n",
		    hw_metrics_http_unauthorized());
	if (fclose(f)) {
		free(x->buf);
		free(x);
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &x->at); /* ready now: a rendering slower than the window is still shared */
	x->refs = 1;
	x->server = s;
	pthread_mutex_lock(&s->lock);
	s->snap = x; /* an older one still sent is freed by its last response */
	s->renders++;
	pthread_mutex_unlock(&s->lock);
	return x;
}

unsigned long hw_metrics_http_renders(struct hw_metrics_http *s)
{
	pthread_mutex_lock(&s->lock);
	unsigned long n = s->renders;
	pthread_mutex_unlock(&s->lock);
	return n;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **state)
{
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	struct hw_metrics_http *s = cls;
	struct MHD_Response *r;
	unsigned status;
	if (!authorized(conn)) {
		static const char msg[] = "unauthorized: this server needs a user and password (HTTP basic auth)\n";
		atomic_fetch_add(&sec.unauthorized, 1);
		r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
		if (!r)
			return MHD_NO;
		enum MHD_Result ret = MHD_queue_basic_auth_fail_response(conn, "hopwatch", r);
		MHD_destroy_response(r);
		return ret;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		static const char msg[] = "only GET /metrics\n";
		r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
	} else if ((r = route_response(s, conn, url, &status))) {
	} else if (!strncmp(url, "/svg/", 5) && (r = file_response(s, url + 5))) {
		status = MHD_HTTP_OK;
	} else if (strcmp(url, "/metrics") || !s->render) {
		static const char msg[] = "not found: hopwatch serves /metrics\n";
		r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_NOT_FOUND;
	} else {
		struct snapshot *x = snap_get(s);
		if (!x)
			return MHD_NO;
		r = MHD_create_response_from_callback(x->len, 64 * 1024, snap_read_cb, x, snap_free_cb);
		if (!r) {
			snap_free_cb(x);
			return MHD_NO;
		}
		MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
		status = MHD_HTTP_OK;
	}
	enum MHD_Result ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

struct hw_metrics_http *hw_metrics_http_start(const char *addr, hw_metrics_render_fn render, void *arg, char *err,
                                              size_t errlen)
{
	return hw_metrics_http_start_files(addr, render, arg, NULL, err, errlen);
}

struct hw_metrics_http *hw_metrics_http_start_files(const char *addr, hw_metrics_render_fn render, void *arg,
                                                    const char *dir, char *err, size_t errlen)
{
	return hw_metrics_http_start_routes(addr, render, arg, dir, NULL, err, errlen);
}

struct hw_metrics_http *hw_metrics_http_start_routes(const char *addr, hw_metrics_render_fn render, void *arg,
                                                     const char *dir, hw_metrics_http_route_fn route, char *err,
                                                     size_t errlen)
{
	char host[256];
	const char *colon = strrchr(addr, ':');
	if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof(host) || !colon[1]) {
		snprintf(err, errlen, "metrics address '%s': expected HOST:PORT", addr);
		return NULL;
	}
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = 0;
	if (host[0] == '[' && host[strlen(host) - 1] == ']') { /* [::1]:9464 */
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = 0;
	}
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *ai;
	int rc = getaddrinfo(host, colon + 1, &hints, &ai);
	if (rc) {
		snprintf(err, errlen, "metrics address '%s': %s", addr, gai_strerror(rc));
		return NULL;
	}
	struct hw_metrics_http *s = calloc(1, sizeof(*s));
	if (!s) {
		freeaddrinfo(ai);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->render = render;
	s->arg = arg;
	pthread_mutex_init(&s->lock, NULL);
	s->route = route;
	snprintf(s->dir, sizeof(s->dir), "%s", dir ? dir : "");
	/* epoll (MHD_USE_AUTO), not select: descriptors above FD_SETSIZE work; bounded connections (docs/collector.md
	 * "/metrics"): a flood of idle ones is refused or timed out instead of taking every descriptor */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* TLS (hw_metrics_http_secure): the PEM texts; without them the two options are ignored (MHD_OPTION_END
	 * ends the list early) */
	if (sec.cert)
		flags |= MHD_USE_TLS;
	s->d = MHD_start_daemon(
	    flags, 0, NULL, NULL, handle, s, MHD_OPTION_EXTERNAL_LOGGER, http_log, s, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HW_METRICS_HTTP_TIMEOUT_S, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned)HW_METRICS_HTTP_MAX_CONN, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	    (unsigned)HW_METRICS_HTTP_MAX_PER_IP, sec.cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, sec.cert,
	    MHD_OPTION_HTTPS_MEM_KEY, sec.key, MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!s->d) {
		snprintf(err, errlen, "metrics address '%s': cannot listen (in use, not an address of this host%s)",
		         addr, sec.cert ? ", or the TLS certificate and key do not fit" : "");
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	return s;
}

void hw_metrics_http_stop(struct hw_metrics_http *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d); /* destroys its responses, and with them the snapshots */
	pthread_mutex_destroy(&s->lock);
	free(s);
}
