/* Credentials hidden for messages (redact.h): the password of a URL's user:password@ and of a password= query
 * parameter.  No libcurl here, so that the option layer can use it too. */
#include <stdio.h>
#include <string.h>

#include "redact.h"

char *hw_http_redact(const char *url, char *out, size_t size)
{
	/* userinfo: between "://" and the first '@' before the path */
	const char *host = strstr(url, "://");
	host = host ? host + 3 : url;
	size_t auth_end = strcspn(host, "/?#");
	const char *at = memchr(host, '@', auth_end);
	const char *colon = at ? memchr(host, ':', (size_t)(at - host)) : NULL;
	char tmp[2048];
	if (colon)
		snprintf(tmp, sizeof(tmp), "%.*s:***%s", (int)(colon - url), url, at);
	else
		snprintf(tmp, sizeof(tmp), "%s", url);
	/* a password= query parameter (ClickHouse takes one) */
	char *q = strchr(tmp, '?');
	size_t o = 0;
	for (char *p = tmp; *p && o + 1 < size;) {
		if (q && p > q && (p[-1] == '?' || p[-1] == '&') && !strncmp(p, "password=", 9)) {
			o += (size_t)snprintf(out + o, size - o, "password=***");
			p += 9 + strcspn(p + 9, "&#");
			continue;
		}
		out[o++] = *p++;
	}
	if (o >= size)
		o = size - 1;
	if (size)
		out[o] = 0;
	return out;
}
