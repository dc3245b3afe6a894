/* Socket addresses: parsing "unix:/path" and "tcp:HOST:PORT" (names and [v6] literals) into one
 * resolved address, and printing one back (sock_addr.h). */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "errf.h"
#include "sock_addr.h"

static int parse_unix(const char *addr, const char *path, struct hw_sock_addr *out, char *err, size_t errlen)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&out->ss;
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof(un->sun_path) || n >= sizeof(out->path)) {
		hw_errf(err, errlen, "stream address \"%s\": unix socket path must be 1 to %zu bytes", addr,
		        sizeof(un->sun_path) - 1);
		return -1;
	}
	un->sun_family = AF_UNIX;
	memcpy(un->sun_path, path, n + 1);
	memcpy(out->path, path, n + 1);
	out->family = AF_UNIX;
	out->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	return 0;
}

static int parse_tcp(const char *addr, const char *hp, int passive, struct hw_sock_addr *out, char *err, size_t errlen)
{
	char host[256];
	const char *colon = strrchr(hp, ':');
	if (!colon || colon == hp || !colon[1]) {
		hw_errf(err, errlen, "stream address \"%s\": expected tcp:HOST:PORT", addr);
		return -1;
	}
	size_t hl = (size_t)(colon - hp);
	if (hp[0] == '[' && hl >= 2 && hp[hl - 1] == ']') { /* [v6 literal] */
		hp++;
		hl -= 2;
	}
	if (hl == 0 || hl >= sizeof(host)) {
		hw_errf(err, errlen, "stream address \"%s\": bad host", addr);
		return -1;
	}
	memcpy(host, hp, hl);
	host[hl] = 0;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = passive ? AI_PASSIVE : 0};
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc) {
		hw_errf(err, errlen, "stream address \"%s\": %s", addr, gai_strerror(rc));
		return -1;
	}
	if (res->ai_addrlen > sizeof(out->ss)) {
		freeaddrinfo(res);
		hw_errf(err, errlen, "stream address \"%s\": address too long", addr);
		return -1;
	}
	memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
	out->len = res->ai_addrlen;
	out->family = res->ai_family;
	freeaddrinfo(res);
	return 0;
}

int hw_sock_addr_parse(const char *addr, int passive, struct hw_sock_addr *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!addr) {
		hw_errf(err, errlen, "stream address missing");
		return -1;
	}
	if (!strncmp(addr, "unix:", 5))
		return parse_unix(addr, addr + 5, out, err, errlen);
	if (!strncmp(addr, "tcp:", 4))
		return parse_tcp(addr, addr + 4, passive, out, err, errlen);
	hw_errf(err, errlen, "stream address \"%s\": expected unix:/path or tcp:HOST:PORT", addr);
	return -1;
}

const char *hw_sock_addr_text(const struct sockaddr *sa, socklen_t len, char *buf, size_t buflen)
{
	char host[INET6_ADDRSTRLEN];
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(buf, buflen, "tcp:%s:%u", host, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(buf, buflen, "tcp:[%s]:%u", host, ntohs(in6->sin6_port));
	} else if (sa->sa_family == AF_UNIX) {
		const struct sockaddr_un *un = (const struct sockaddr_un *)sa;
		size_t max =
		    len > offsetof(struct sockaddr_un, sun_path) ? len - offsetof(struct sockaddr_un, sun_path) : 0;
		snprintf(buf, buflen, "unix:%.*s", (int)strnlen(un->sun_path, max), un->sun_path);
	} else {
		snprintf(buf, buflen, "family %d", sa->sa_family);
	}
	return buf;
}
