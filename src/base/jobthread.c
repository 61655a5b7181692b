/*
 * jobthread: a blocking connection's own thread (see jobthread.h).
 */
#include "jobthread.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util.h"

struct jobthread {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int efd;             /* readable when a job finished */
    void (*job)(void *); /* the job to run; NULL: none waiting */
    void *arg;
    int running; /* a job was handed over and has not finished */
    int quit;
    int cancel_fd; /* the socket jobs block on, or -1 */
    const struct jobthread_hooks *hooks;
};

static void *
thread_main(void *p)
{
    struct jobthread *t = p;
    uint64_t one = 1;

    if (t->hooks != NULL && t->hooks->thread_init != NULL)
        t->hooks->thread_init();
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
            fatal("job thread: eventfd write: %s", strerror(errno));
    }
    pthread_mutex_unlock(&t->lock);
    if (t->hooks != NULL && t->hooks->thread_end != NULL)
        t->hooks->thread_end();
    return NULL;
}

static void
jobthread_wait(struct jobthread *t)
{
    uint64_t v;

    pthread_mutex_lock(&t->lock);
    while (t->running)
        pthread_cond_wait(&t->cond, &t->lock);
    pthread_mutex_unlock(&t->lock);
    if (read(t->efd, &v, sizeof v) < 0 && errno != EAGAIN)
        fatal("job thread: eventfd read: %s", strerror(errno));
}

struct jobthread *
jobthread_new(const struct jobthread_hooks *hooks)
{
    struct jobthread *t = xcalloc(1, sizeof *t);
    int rc;

    t->hooks = hooks;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->cond, NULL);
    t->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (t->efd < 0)
        fatal("job thread: eventfd: %s", strerror(errno));
    t->cancel_fd = -1;
    rc = pthread_create(&t->thread, NULL, thread_main, t);
    if (rc != 0) { /* a memory limit (ulimit -v) or a thread limit: the user's to change */
        static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;

        pthread_mutex_lock(&once); /* never let go: another worker's failure waits for exit */
        usage_fatal("cannot start a thread for a connection: %s (use fewer clients -c, or allow "
                    "more memory and threads: ulimit -v, ulimit -u)",
                    strerror(rc));
    }
    return t;
}

int
jobthread_fd(const struct jobthread *t)
{
    return t->efd;
}

void
jobthread_post(struct jobthread *t, void (*job)(void *), void *arg)
{
    pthread_mutex_lock(&t->lock);
    if (t->running)
        fatal("job thread: a job was posted while another runs");
    t->job = job;
    t->arg = arg;
    t->running = 1;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
}

int
jobthread_take(struct jobthread *t)
{
    uint64_t v;
    int done;

    pthread_mutex_lock(&t->lock); /* pairs with the job thread's unlock: its writes are visible */
    done = !t->running;
    pthread_mutex_unlock(&t->lock);
    if (done && read(t->efd, &v, sizeof v) < 0 && errno != EAGAIN)
        fatal("job thread: eventfd read: %s", strerror(errno));
    return done;
}

void
jobthread_set_cancel_fd(struct jobthread *t, int fd)
{
    pthread_mutex_lock(&t->lock);
    t->cancel_fd = fd;
    pthread_mutex_unlock(&t->lock);
}

void
jobthread_cancel(struct jobthread *t)
{
    pthread_mutex_lock(&t->lock);
    /* Under the lock: the job cannot close the socket (and free its number) meanwhile. */
    if (t->running && t->cancel_fd >= 0)
        shutdown(t->cancel_fd, SHUT_RDWR);
    pthread_mutex_unlock(&t->lock);
}

void
jobthread_run(struct jobthread *t, void (*job)(void *), void *arg)
{
    jobthread_wait(t);
    jobthread_post(t, job, arg);
    jobthread_wait(t);
}

void
jobthread_free(struct jobthread *t)
{
    if (t == NULL)
        return;
    jobthread_wait(t);
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
