/* The Kubernetes API source's fetcher (ident_k8s.c): a thread that lists the pods every every_s seconds and keeps
 * the newest answer for ident.c to take. */
#ifndef HOPWATCH_IDENT_K8S_H
#define HOPWATCH_IDENT_K8S_H

#include <stdint.h>

#include "hopwatch/ident.h"

struct ident_k8s;

/* Start listing url now and then every o->every_s; NULL with err when it cannot start. */
struct ident_k8s *ident_k8s_start(const char *url, const struct hw_ident_k8s_opts *o, char *err, size_t errlen);
/* The newest answer when it is newer than *gen (then *gen follows): 1 with *text (malloc'd, the caller's), -1
 * with err (what went wrong), 0 when there is none newer.  wait: block until there is one. */
int ident_k8s_take(struct ident_k8s *k, uint64_t *gen, int wait, char **text, char *err, size_t errlen);
void ident_k8s_stop(struct ident_k8s *k);

#endif
