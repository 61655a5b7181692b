dnl MySQL and MariaDB through MariaDB Connector/C (or libmysqlclient).
BT_BACKEND([mysql], [libmariadb], [HAVE_MYSQL])

dnl Without MariaDB Connector/C, Oracle's libmysqlclient will do (pkg-config
dnl mysqlclient): it has no non-blocking API, so connections get threads.
AS_IF([test "x$have_mysql" = xno && test "x$with_mysql" != xno], [
  PKG_CHECK_MODULES([MYSQL], [mysqlclient], [
    have_mysql=yes
    AC_DEFINE([HAVE_MYSQL], [1], [Define if the mysql backend is built])
    BACKEND_DIRS="$BACKEND_DIRS mysql"
    BACKEND_CFLAGS="$BACKEND_CFLAGS $MYSQL_CFLAGS"
    BACKEND_LIBS="$BACKEND_LIBS $MYSQL_LIBS"
    FOUND="$FOUND mysql"
  ], [:])
])

dnl The MySQL driver runs its connections on the worker loops through
dnl Connector/C's non-blocking calls (mysql_real_connect_start, ...).
dnl --disable-mysql-nonblocking builds the thread-per-connection fallback
dnl instead, which is also what a library without those calls gets.
AC_ARG_ENABLE([mysql-nonblocking],
              AS_HELP_STRING([--disable-mysql-nonblocking], [run MySQL connections on threads of their own (blocking calls)]),
              [], [enable_mysql_nonblocking=check])
mysql_io=no
AS_IF([test "x$have_mysql" = xyes], [
  mysql_io=threads
  AS_IF([test "x$enable_mysql_nonblocking" != xno], [
    save_CFLAGS=$CFLAGS
    save_LIBS=$LIBS
    CFLAGS="$CFLAGS $MYSQL_CFLAGS"
    LIBS="$MYSQL_LIBS $LIBS"
    AC_CHECK_FUNC([mysql_real_connect_start], [mysql_io=nonblocking])
    CFLAGS=$save_CFLAGS
    LIBS=$save_LIBS
  ])
  AS_IF([test "x$mysql_io" = xnonblocking],
        [AC_DEFINE([HAVE_MYSQL_NONBLOCK], [1], [Define if the MySQL client library has the non-blocking API])],
        [AS_IF([test "x$enable_mysql_nonblocking" = xyes],
               [AC_MSG_ERROR([--enable-mysql-nonblocking given but the MySQL client library has no mysql_real_connect_start (use MariaDB Connector/C: libmariadb-dev)])])])
])
bt_note_mysql=" (connections: $mysql_io)"
dnl The connection model, one file of the two (conn.h).
AS_IF([test "x$mysql_io" != xno], [BACKEND_SRCS="$BACKEND_SRCS collectors/mysql/io/$mysql_io.c"])
