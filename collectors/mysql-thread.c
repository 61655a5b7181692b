/*
 * mysql-thread: a thread of its own for one connection, for client
 * libraries without the non-blocking API (Oracle's libmysqlclient, or a
 * build with --disable-mysql-nonblocking).
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
#include "config.h"

#include "mysql.h"

#ifndef HAVE_MYSQL_NONBLOCK

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

struct my_thread {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int efd;             /* readable when a job finished */
    void (*job)(void *); /* the job to run; NULL: none waiting */
    void *arg;
    int running; /* a job was handed over and has not finished */
    int quit;
    int cancel_fd; /* the socket jobs block on, or -1 */
};

static void *
thread_main(void *p)
{
    struct my_thread *t = p;
    uint64_t one = 1;

    mysql_thread_init(); /* libmysqlclient wants it in every thread that calls it */
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (t->job == NULL && !t->quit)
            pthread_cond_wait(&t->cond, &t->lock);
        if (t->job == NULL)
            break;
        void (*job)(void *) = t->job;
        void *arg = t->arg;
        t->job = NULL;
        pthread_mutex_unlock(&t->lock);
        job(arg);
        pthread_mutex_lock(&t->lock);
        t->running = 0;
        pthread_cond_broadcast(&t->cond);
        if (write(t->efd, &one, sizeof one) != sizeof one)
            fatal("mysql thread: eventfd write: %s", strerror(errno));
    }
    pthread_mutex_unlock(&t->lock);
    mysql_thread_end();
    return NULL;
}

struct my_thread *
my_thread_new(void)
{
    struct my_thread *t = xcalloc(1, sizeof *t);
    int rc;

    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->cond, NULL);
    t->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (t->efd < 0)
        fatal("mysql thread: eventfd: %s", strerror(errno));
    t->cancel_fd = -1;
    rc = pthread_create(&t->thread, NULL, thread_main, t);
    if (rc != 0)
        fatal("mysql thread: cannot start a thread: %s (use fewer clients)", strerror(rc));
    return t;
}

int
my_thread_fd(const struct my_thread *t)
{
    return t->efd;
}

void
my_thread_post(struct my_thread *t, void (*job)(void *), void *arg)
{
    pthread_mutex_lock(&t->lock);
    if (t->running)
        fatal("mysql thread: a job was posted while another runs");
    t->job = job;
    t->arg = arg;
    t->running = 1;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
}

int
my_thread_take(struct my_thread *t)
{
    uint64_t v;
    int done;

    pthread_mutex_lock(&t->lock); /* pairs with the job thread's unlock: its writes are visible */
    done = !t->running;
    pthread_mutex_unlock(&t->lock);
    if (done && read(t->efd, &v, sizeof v) < 0 && errno != EAGAIN)
        fatal("mysql thread: eventfd read: %s", strerror(errno));
    return done;
}

void
my_thread_set_cancel_fd(struct my_thread *t, int fd)
{
    pthread_mutex_lock(&t->lock);
    t->cancel_fd = fd;
    pthread_mutex_unlock(&t->lock);
}

void
my_thread_cancel(struct my_thread *t)
{
    pthread_mutex_lock(&t->lock);
    /* Under the lock: the job cannot close the socket (and free its number) meanwhile. */
    if (t->running && t->cancel_fd >= 0)
        shutdown(t->cancel_fd, SHUT_RDWR);
    pthread_mutex_unlock(&t->lock);
}

static void
my_thread_wait(struct my_thread *t)
{
    uint64_t v;

    pthread_mutex_lock(&t->lock);
    while (t->running)
        pthread_cond_wait(&t->cond, &t->lock);
    pthread_mutex_unlock(&t->lock);
    if (read(t->efd, &v, sizeof v) < 0 && errno != EAGAIN)
        fatal("mysql thread: eventfd read: %s", strerror(errno));
}

void
my_thread_run(struct my_thread *t, void (*job)(void *), void *arg)
{
    my_thread_wait(t);
    my_thread_post(t, job, arg);
    my_thread_wait(t);
}

void
my_thread_free(struct my_thread *t)
{
    if (t == NULL)
        return;
    my_thread_wait(t);
    pthread_mutex_lock(&t->lock);
    t->quit = 1;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    close(t->efd);
    pthread_cond_destroy(&t->cond);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

#endif
