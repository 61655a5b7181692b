/*
 * client: one simulated client, a state machine over one driver connection,
 * advanced by client_advance() only (pgbench's advanceConnectionState idea).
 * A client belongs to one worker thread for its whole life.
 */
#ifndef BENCHTOP_CLIENT_H
#define BENCHTOP_CLIENT_H

#include <stdint.h>

#include "client-state.h"

struct worker;

/* depth: transactions in flight per connection (1 unless the driver pipelines). rng: its own. */
void client_init(struct client *c, int id, void *conn, int depth, struct rng *rng);
/* Frees what client_init allocated (not conn: the driver's). */
void client_free(struct client *c);
/* Runs the state machine until it must wait (socket, timer or schedule). */
void client_advance(struct worker *w, struct client *c);
/* Open loop: gives a waiting client the transaction scheduled at sched_us. */
void client_give_slot(struct worker *w, struct client *c, uint64_t sched_us);
/* Whether the client waits for a scheduled transaction (open loop). */
int client_wants_slot(const struct worker *w, const struct client *c);
/* Closes the connection, if any (end of run). */
void client_close(struct worker *w, struct client *c);
/* A queued send failed (msg says how): a lost connection. */
void client_send_failed(struct worker *w, struct client *c, const char *msg);
/* The connect or transaction in flight made no progress for --stall-timeout: a lost connection. */
void client_stalled(struct worker *w, struct client *c);

#endif
