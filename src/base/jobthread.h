/*
 * jobthread: a thread of its own for one connection whose client library
 * only blocks (SQLite; MySQL without the non-blocking API).
 *
 * The worker loop hands a job (connect, one transaction, close) to the
 * connection's thread, which runs it with blocking calls and then makes an
 * eventfd readable; the worker waits on that eventfd as it would on a
 * socket. So the engine sees the same non-blocking driver either way, at
 * the price of a thread and two context switches per job.
 *
 * Ownership: while a job runs, only the job's thread touches the
 * connection; the mutex hands it back and forth (and orders memory).
 */
#ifndef BENCHTOP_JOBTHREAD_H
#define BENCHTOP_JOBTHREAD_H

struct jobthread;

/* Run by the thread itself at its start and end (a library's per-thread set-up); may be NULL. */
struct jobthread_hooks {
    void (*thread_init)(void);
    void (*thread_end)(void);
};

/* Starts the connection's thread (idle). hooks may be NULL; they must outlive the thread. */
struct jobthread *jobthread_new(const struct jobthread_hooks *hooks);
/* Readable once the job handed over last has finished: what the worker waits on. */
int jobthread_fd(const struct jobthread *t);
/* Hands job(arg) to the thread; none may be running. Returns at once. */
void jobthread_post(struct jobthread *t, void (*job)(void *), void *arg);
/* 1 (and the fd drained) if no job runs any more; 0 if one still runs. Never blocks. */
int jobthread_take(struct jobthread *t);
/* The socket the jobs block on (-1: none): jobthread_cancel shuts it down. Called by jobs. */
void jobthread_set_cancel_fd(struct jobthread *t, int fd);
/* Ends a running job early by shutting its socket down (its call fails as a lost connection). */
void jobthread_cancel(struct jobthread *t);
/* Runs job(arg) on the thread and waits for it (after the running job, if any). */
void jobthread_run(struct jobthread *t, void (*job)(void *), void *arg);
/* Waits for a running job, then ends the thread. NULL is fine. */
void jobthread_free(struct jobthread *t);

#endif
