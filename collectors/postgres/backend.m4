dnl PostgreSQL (and PgBouncer in front of it) through libpq's non-blocking API.
BT_BACKEND([postgres], [libpq], [HAVE_POSTGRES])
