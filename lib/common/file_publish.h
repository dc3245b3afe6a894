/* Putting a finished output file in place under a time-named and a stable name at once, so that a
 * reader of either name sees the old file or the new one, whole (event graphs, latency matrix). */
#ifndef HOPWATCH_FILE_PUBLISH_H
#define HOPWATCH_FILE_PUBLISH_H

/* Rename the complete file tmp to timed, hard-link timed back to tmp and rename that over stable:
 * one file, two names, written once.  0, or -1 with errno set; tmp is removed either way. */
int an_publish_file(const char *tmp, const char *timed, const char *stable);

#endif
