/* What the stream sender and listener share: the frame header codec, the key file and the frame tag
 * (the address parser they use is lib/common/sock_addr.c). */
#include <errno.h>
#include <fcntl.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hopwatch/stream.h"
#include "sinks_internal.h"

void hw_frame_hdr_put(uint8_t out[32], uint16_t version, uint32_t count, uint64_t seq, uint64_t dropped)
{
	hw_put_le32(out, HW_STREAM_MAGIC);
	hw_put_le16(out + 4, version);
	hw_put_le16(out + 6, HW_RECORD_SIZE);
	hw_put_le32(out + 8, count);
	hw_put_le32(out + 12, 0);
	hw_put_le64(out + 16, seq);
	hw_put_le64(out + 24, dropped);
}

void hw_frame_hdr_get(const uint8_t in[32], struct hw_frame_hdr *h)
{
	h->magic = hw_get_le32(in);
	h->version = hw_get_le16(in + 4);
	h->rec_size = hw_get_le16(in + 6);
	h->count = hw_get_le32(in + 8);
	h->reserved = hw_get_le32(in + 12);
	h->seq = hw_get_le64(in + 16);
	h->dropped = hw_get_le64(in + 24);
}

int hw_stream_key_load(const char *path, uint8_t key[HW_STREAM_KEY_MAX], size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		hw_errf(err, errlen, "stream key %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_mode & 077) {
		hw_errf(err, errlen,
		        "stream key %s: readable or writable by others than its owner (mode %03o; chmod 600)", path,
		        (unsigned)(st.st_mode & 0777));
		close(fd);
		return -1;
	}
	uint8_t buf[HW_STREAM_KEY_MAX + 2];
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0) {
		hw_errf(err, errlen, "stream key %s: %s", path, strerror(errno));
		return -1;
	}
	size_t k = (size_t)n;
	if (k && buf[k - 1] == '\n')
		k--;
	if (k < 16 || k > HW_STREAM_KEY_MAX) {
		hw_errf(err, errlen,
		        "stream key %s: %zu bytes (16 to %d: e.g. head -c 32 /dev/urandom | base64 > FILE)", path, k,
		        HW_STREAM_KEY_MAX);
		return -1;
	}
	memcpy(key, buf, k);
	*len = k;
	return 0;
}

struct hw_frame_mac {
	EVP_MAC *mac;
	EVP_MAC_CTX *keyed; /* HMAC-SHA256 with the key; each tag works on a copy */
};

struct hw_frame_mac *hw_frame_mac_new(const uint8_t *key, size_t len)
{
	struct hw_frame_mac *m = calloc(1, sizeof(*m));
	char digest[] = "SHA256";
	OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0), OSSL_PARAM_construct_end()};
	if (!m || !(m->mac = EVP_MAC_fetch(NULL, "HMAC", NULL)) || !(m->keyed = EVP_MAC_CTX_new(m->mac)) ||
	    !EVP_MAC_init(m->keyed, key, len, params)) {
		hw_frame_mac_free(m);
		return NULL;
	}
	return m;
}

int hw_frame_mac_tag(const struct hw_frame_mac *m, const uint8_t challenge[HW_STREAM_CHALLENGE], const uint8_t *frame,
                     size_t len, uint8_t tag[HW_STREAM_TAG])
{
	EVP_MAC_CTX *c = EVP_MAC_CTX_dup(m->keyed);
	size_t out = 0;
	int ok = c && EVP_MAC_update(c, challenge, HW_STREAM_CHALLENGE) && EVP_MAC_update(c, frame, len) &&
	         EVP_MAC_final(c, tag, &out, HW_STREAM_TAG) && out == HW_STREAM_TAG;
	EVP_MAC_CTX_free(c);
	if (!ok)
		memset(tag, 0, HW_STREAM_TAG);
	return ok ? 0 : -1;
}

void hw_frame_mac_free(struct hw_frame_mac *m)
{
	if (!m)
		return;
	EVP_MAC_CTX_free(m->keyed);
	EVP_MAC_free(m->mac);
	free(m);
}
