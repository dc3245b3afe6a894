/* Socket addresses as hopwatch writes them: "unix:/path" or "tcp:HOST:PORT" (HOST may be [v6]),
 * parsed into one resolved address and printed back; the record stream and diagnose use them. */
#ifndef HOPWATCH_SOCK_ADDR_H
#define HOPWATCH_SOCK_ADDR_H

#include <stddef.h>
#include <sys/socket.h>

/* A parsed address; for tcp the first getaddrinfo result. */
struct hw_sock_addr {
	int family; /* AF_UNIX, AF_INET or AF_INET6 */
	struct sockaddr_storage ss;
	socklen_t len;
	char path[108]; /* unix socket path, "" for tcp */
};

/* Parse addr (passive: an address to listen on).  0, or -1 with err naming addr. */
int hw_sock_addr_parse(const char *addr, int passive, struct hw_sock_addr *out, char *err, size_t errlen);

/* "unix:/path" or "tcp:HOST:PORT" text of a socket address (buf of at least 128 bytes). */
const char *hw_sock_addr_text(const struct sockaddr *sa, socklen_t len, char *buf, size_t buflen);

#endif
