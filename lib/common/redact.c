/* Credentials hidden for messages (redact.h): the password of a URL's user:password@ and of a password= query
 * parameter.  No libcurl here, so that the option layer can use it too. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "redact.h"

char *hw_http_redact(const char *url, char *out, size_t size)
{
	if (!size)
		return out;
	size_t o = 0;
	const char *auth = NULL; /* inside a URL's authority: after "://", before its path */
	bool query = false;      /* after a '?': password= parameters are hidden */
	for (const char *p = url; *p && o + 1 < size;) {
		/* every URL in the text (a list of replicas holds several): user:password@ -> user:***@ */
		if (!strncmp(p, "://", 3)) {
			auth = p + 3;
			query = false;
			size_t n = strcspn(auth, "/?#, ");
			const char *at = memchr(auth, '@', n),
			           *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
			o += (size_t)snprintf(out + o, size - o, "://%.*s%s", (int)(colon ? colon - auth : 0), auth,
			                      colon ? ":***" : "");
			p = colon ? at : auth;
			continue;
		}
		if (*p == '?')
			query = true;
		else if (*p == ',' || *p == ' ')
			query = false;
		/* p > url: a text may start with its '?' (fuzz_http_reply found the read before it) */
		if (query && p > url && (p[-1] == '?' || p[-1] == '&') && !strncmp(p, "password=", 9)) {
			o += (size_t)snprintf(out + o, size - o, "password=***");
			p += 9 + strcspn(p + 9, "&#, ");
			continue;
		}
		out[o++] = *p++;
	}
	if (o >= size)
		o = size - 1;
	out[o] = 0;
	return out;
}
