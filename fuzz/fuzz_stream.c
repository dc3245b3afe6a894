/* libFuzzer target for the stream listener (stream_listener.c): the input is what one sender writes on a
 * unix socket before closing it; the listener must deliver whole batches of at most HW_STREAM_MAX_BATCH
 * records, refuse anything else with a message, and close the connection (no hang, no leak).  The first
 * byte picks a listener with or without a stream key (then every frame needs a tag).
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true; run: build-fuzz/fuzz/fuzz_stream fuzz/seeds */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hopwatch/record.h"
#include "hopwatch/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hw_stream_listener *listener[2];
static char sock_path[2][108];
static char dir[64];

static void remove_dir(void)
{
	for (int i = 0; i < 2; i++)
		if (listener[i])
			hw_stream_listener_close(listener[i]);
	rmdir(dir);
}

/* The two listeners, made once, in a private directory removed at exit. */
static int setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/fuzz-stream-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	static const uint8_t key[32] = "fuzz-stream-key-of-32-bytes-----";
	for (int i = 0; i < 2; i++) {
		char addr[160], err[256];
		snprintf(sock_path[i], sizeof(sock_path[i]), "%s/s%d", dir, i);
		snprintf(addr, sizeof(addr), "unix:%s", sock_path[i]);
		if (!(listener[i] = hw_stream_listen(addr, err, sizeof(err)))) {
			fprintf(stderr, "fuzz_stream: %s\n", err);
			return -1;
		}
		if (i)
			hw_stream_listener_set_key(listener[i], key, sizeof(key));
	}
	atexit(remove_dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready) {
		if (setup())
			abort();
		ready = 1;
	}
	if (!size || size > 128 * 1024)
		return 0; /* must fit the socket's buffer: written whole before the listener reads */
	struct hw_stream_listener *l = listener[data[0] & 1];
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		abort();
	int sndbuf = 512 * 1024;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	memcpy(a.sun_path, sock_path[data[0] & 1], strlen(sock_path[data[0] & 1]) + 1);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		abort();
	size_t off = 1;
	while (off < size) {
		ssize_t k = send(fd, data + off, size - off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (k <= 0)
			break; /* a full buffer: the rest is not sent, the listener sees a shorter input */
		off += (size_t)k;
	}
	close(fd);
	/* until nothing is readable: the closed connection stays readable (EOF) until the listener drops it */
	static struct hw_record out[HW_STREAM_MAX_BATCH];
	for (int rounds = 0;; rounds++) {
		char err[512] = "";
		long n = hw_stream_receive(l, out, 0, err, sizeof(err));
		if (n > HW_STREAM_MAX_BATCH || n < -1)
			__builtin_trap();
		if (n == -1 && !err[0])
			__builtin_trap(); /* a refusal says why */
		if (!n)
			break;
		if (rounds > 1000000)
			__builtin_trap(); /* a few KiB of input cannot make this many batches: a loop */
	}
	return 0;
}
