/*
 * mysql/io/nonblocking: connections on the worker loops through Connector/C's
 * non-blocking calls (mysql_real_connect_start, ..._cont): see conn.h.
 */
#include "collectors/mysql/conn.h"

#include <string.h>

const char my_io_note[] = "connections on the worker loops (non-blocking client API)";

void
my_io_conn_init(struct my_conn *c)
{
}

int
my_io_set_nonblocking(MYSQL *m, char *err)
{
    if (mysql_options(m, MYSQL_OPT_NONBLOCK, 0) != 0)
        return seterr(err, "the client library refused non-blocking mode");
    return 0;
}

int
my_call_query(struct my_conn *c, const char *sql, size_t len)
{
    return mysql_real_query_start(&c->ret, c->m, sql, (unsigned long)len);
}

int
my_call_store(struct my_conn *c)
{
    return mysql_store_result_start(&c->res, c->m);
}

int
my_call_prepare(struct my_conn *c, const char *sql, size_t len)
{
    return mysql_stmt_prepare_start(&c->ret, c->stmt, sql, (unsigned long)len);
}

int
my_call_execute(struct my_conn *c)
{
    return mysql_stmt_execute_start(&c->ret, c->stmt);
}

int
my_call_stmt_store(struct my_conn *c)
{
    return mysql_stmt_store_result_start(&c->ret, c->stmt);
}

static int
resume(struct my_conn *c)
{
    int ready = c->wait & MYSQL_WAIT_WRITE ? MYSQL_WAIT_WRITE : MYSQL_WAIT_READ;

    switch (c->phase) {
    case PH_QUERY:
    case PH_ROLLBACK:
        return mysql_real_query_cont(&c->ret, c->m, ready);
    case PH_STORE:
        return mysql_store_result_cont(&c->res, c->m, ready);
    case PH_PREPARE:
        return mysql_stmt_prepare_cont(&c->ret, c->stmt, ready);
    case PH_EXECUTE:
        return mysql_stmt_execute_cont(&c->ret, c->stmt, ready);
    case PH_STMT_STORE:
        return mysql_stmt_store_result_cont(&c->ret, c->stmt, ready);
    }
    fatal("mysql: unknown phase %d", (int)c->phase);
}

void
my_conn_disconnect(void *conn)
{
    my_close_conn(conn);
}

void
my_conn_free(void *conn)
{
    struct my_conn *c = conn;

    my_close_conn(c);
    my_conn_release(c);
}

int
my_conn_fd(void *conn)
{
    return (int)mysql_get_socket(((struct my_conn *)conn)->m);
}

enum drv_status
my_conn_connect_start(void *conn, char *err)
{
    struct my_conn *c = conn;
    const struct my_target *t = c->sh->target;
    int status;

    c->connected_early = 0;
    c->m = my_new_handle(c, 1, err);
    if (c->m == NULL)
        return DRV_ERROR;
    status = mysql_real_connect_start(&c->ret_conn, c->m, t->host, t->user, t->password, t->db,
                                      t->port, t->socket, 0);
    if (status != 0)
        return my_waiting(c, status);
    if (c->ret_conn == NULL)
        return my_connect_failed(c, err);
    if (my_target_check_tls(c->m, t, err) < 0)
        return DRV_ERROR;
    /* Finished at once (rare): the engine waits on the socket first, and it is writable. */
    my_note_connected(c);
    c->connected_early = 1;
    return DRV_WANT_WRITE;
}

enum drv_status
my_conn_connect_poll(void *conn, char *err)
{
    struct my_conn *c = conn;
    int ready = c->wait & MYSQL_WAIT_WRITE ? MYSQL_WAIT_WRITE : MYSQL_WAIT_READ;
    int status;

    if (c->connected_early)
        return DRV_DONE;
    status = mysql_real_connect_cont(&c->ret_conn, c->m, ready);
    if (status != 0)
        return my_waiting(c, status);
    if (c->ret_conn == NULL)
        return my_connect_failed(c, err);
    if (my_target_check_tls(c->m, c->sh->target, err) < 0)
        return DRV_ERROR;
    my_note_connected(c);
    return DRV_DONE;
}

enum drv_status
my_conn_txn_start(void *conn, struct txn_result *res)
{
    struct my_conn *c = conn;
    int status = 0;
    enum step s = my_begin_txn(c, res, &status); /* before status is read */
    enum drv_status st = my_advance(c, res, s, status);

    /* a fast server answers every statement before the library has to wait */
    return st == DRV_DONE ? DRV_DONE_SENT : st;
}

enum drv_status
my_conn_txn_poll(void *conn, struct txn_result *res)
{
    struct my_conn *c = conn;

    return my_advance(c, res, STEP_CALL, resume(c));
}
