/*
 * answer: what kind of server answers on a port, for the message when a
 * target's scheme names another database (postgres:// at a Redis port
 * waited 5 s for a timeout). A probe reads the greeting a server sends
 * first (MySQL, SSH), else sends "PING\r\n" and reads the reply.
 */
#ifndef BENCHTOP_ANSWER_H
#define BENCHTOP_ANSWER_H

#include <stddef.h>

/* The kind of server whose first bytes these are ("Redis", "a MySQL/MariaDB server"), or NULL. */
const char *answer_kind(const unsigned char *buf, size_t n);

/*
 * Connects to host:port (TCP), reads for up to wait_ms, then sends a PING
 * line and reads again; the kind answer_kind finds, or NULL (nothing
 * answered, or nothing known). Bounded: at most about 3 * wait_ms.
 */
const char *answer_probe(const char *host, const char *port, int wait_ms);

#endif
