/*
 * mysql/io/threads: a thread of its own per connection running the blocking
 * calls (libmysqlclient has no non-blocking API; --disable-mysql-nonblocking
 * chooses it too): see conn.h and base/jobthread.h.
 */
#include "collectors/mysql/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char my_io_note[] = "a thread per connection (the client library has no non-blocking API)";
void
my_io_conn_init(struct my_conn *c)
{
    c->th = jobthread_new(&my_jobthread_hooks);
}

int
my_io_set_nonblocking(MYSQL *m, char *err)
{
    return seterr(err, "this build runs MySQL connections on threads (no non-blocking API)");
}

int
my_call_query(struct my_conn *c, const char *sql, size_t len)
{
    c->ret = mysql_real_query(c->m, sql, (unsigned long)len);
    return 0;
}

int
my_call_store(struct my_conn *c)
{
    c->res = mysql_store_result(c->m);
    return 0;
}

int
my_call_prepare(struct my_conn *c, const char *sql, size_t len)
{
    c->ret = mysql_stmt_prepare(c->stmt, sql, (unsigned long)len);
    return 0;
}

int
my_call_execute(struct my_conn *c)
{
    c->ret = mysql_stmt_execute(c->stmt);
    return 0;
}

int
my_call_stmt_store(struct my_conn *c)
{
    c->ret = mysql_stmt_store_result(c->stmt);
    return 0;
}

/* The jobs the connection's thread runs: each blocks as long as it takes. */
static void
job_connect(void *arg)
{
    struct my_conn *c = arg;
    const struct my_target *t = c->sh->target;

    c->job_status = DRV_ERROR;
    c->m = my_new_handle(c, 0, c->job_err);
    if (c->m == NULL)
        return;
    if (mysql_real_connect(c->m, t->host, t->user, t->password, t->db, t->port, t->socket, 0) ==
        NULL) {
        my_connect_failed(c, c->job_err);
        return;
    }
    if (my_target_check_tls(c->m, t, c->job_err) < 0)
        return;
#ifdef LIBMARIADB
    jobthread_set_cancel_fd(c->th, (int)mysql_get_socket(c->m));
#else
    jobthread_set_cancel_fd(c->th, (int)c->m->net.fd); /* libmysqlclient has no getter */
#endif
    my_note_connected(c);
    c->job_status = DRV_DONE;
}

static void
job_txn(void *arg)
{
    struct my_conn *c = arg;
    int status = 0;
    enum step s = my_begin_txn(c, c->job_res, &status);

    c->job_status = my_advance(c, c->job_res, s, status);
}

static void
job_close(void *arg)
{
    struct my_conn *c = arg;

    jobthread_set_cancel_fd(c->th, -1);
    my_close_conn(c);
}

void
my_conn_disconnect(void *conn)
{
    struct my_conn *c = conn;

    /* At the end of a run a transaction may still be running: cut it short, then close. */
    jobthread_cancel(c->th);
    jobthread_run(c->th, job_close, c);
}

void
my_conn_free(void *conn)
{
    struct my_conn *c = conn;

    my_conn_disconnect(c);
    jobthread_free(c->th);
    my_conn_release(c);
}

int
my_conn_fd(void *conn)
{
    return jobthread_fd(((struct my_conn *)conn)->th);
}

enum drv_status
my_conn_connect_start(void *conn, char *err)
{
    struct my_conn *c = conn;

    jobthread_post(c->th, job_connect, c);
    return DRV_WANT_READ;
}

enum drv_status
my_conn_connect_poll(void *conn, char *err)
{
    struct my_conn *c = conn;

    if (!jobthread_take(c->th))
        return DRV_WANT_READ;
    if (c->job_status == DRV_ERROR)
        snprintf(err, BT_ERRLEN, "%s", c->job_err);
    return c->job_status;
}

enum drv_status
my_conn_txn_start(void *conn, struct txn_result *res)
{
    struct my_conn *c = conn;

    /*
     * The job runs on the connection's thread while the worker's buffers may
     * swap: it counts into its own result and statements, taken over below.
     */
    c->job.err = ERR_NONE;
    c->job.ops = 0;
    c->job.stmts = res->stmts != NULL ? c->job_stmts : NULL;
    c->job_res = &c->job;
    jobthread_post(c->th, job_txn, c);
    return DRV_WANT_READ;
}

enum drv_status
my_conn_txn_poll(void *conn, struct txn_result *res)
{
    struct my_conn *c = conn;

    if (!jobthread_take(c->th))
        return DRV_WANT_READ;
    res->err = c->job.err;
    res->ops = c->job.ops;
    memcpy(res->msg, c->job.msg, sizeof res->msg);
    for (int i = 0; c->job.stmts != NULL && i < c->sh->nlabels; i++) {
        struct stmt_stat *st = &c->job_stmts[i];
        if (res->stmts != NULL) {
            res->stmts[i].n += st->n;
            res->stmts[i].errors += st->errors;
            res->stmts[i].sum_us += st->sum_us;
        }
        memset(st, 0, sizeof *st);
    }
    return c->job_status;
}
