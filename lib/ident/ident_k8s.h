/* The Kubernetes API source's fetcher (ident_k8s.c): a thread that lists the pods, follows their watch and keeps
 * the newest pod list, and the failures since it was last taken, for ident.c to take. */
#ifndef HOPWATCH_IDENT_K8S_H
#define HOPWATCH_IDENT_K8S_H

#include <stdint.h>

#include "hopwatch/ident.h"

struct ident_k8s;

/* Start listing url now, then follow its watch (listing again after a 410 Gone, and every o->every_s after a
 * failure); NULL with err when it cannot start. */
struct ident_k8s *ident_k8s_start(const char *url, const struct hw_ident_k8s_opts *o, char *err, size_t errlen);

/* What happened since the last take. */
struct ident_k8s_news {
	char *text;             /* the newest pod list ({"items": [...]}, malloc'd, the caller's); NULL: none newer */
	uint64_t fails;         /* failures (lists, watches) since the last take */
	int failing;            /* the newest outcome is a failure (newer than text) */
	char err[600];          /* the newest failure's message */
	char first_err[600];    /* the first failure's since the last take (fails > 1: it may differ) */
	uint64_t lists, events; /* pod lists answered and watch events applied, since the start */
};
/* 1 when something happened since the last take (wait: block until it has), else 0; *n is filled either way. */
int ident_k8s_take(struct ident_k8s *k, struct ident_k8s_news *n, int wait);
void ident_k8s_stop(struct ident_k8s *k);

#endif
