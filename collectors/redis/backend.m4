dnl Redis: hiredis's reply reader on benchtop's own non-blocking sockets.
BT_BACKEND([redis], [hiredis], [HAVE_REDIS])

dnl rediss:// (TLS) through OpenSSL, which hiredis 0.14 lacks: one file of
dnl two (collectors/redis/tls.h). Without libssl, or with --disable-redis-tls,
dnl tls/none.c refuses rediss:// in one line.
AC_ARG_ENABLE([redis-tls],
              AS_HELP_STRING([--disable-redis-tls], [build without rediss:// (no OpenSSL)]),
              [], [enable_redis_tls=check])
redis_tls=no
AS_IF([test "x$have_redis" = xyes && test "x$enable_redis_tls" != xno], [
  PKG_CHECK_MODULES([OPENSSL], [openssl], [redis_tls=openssl], [
    AS_IF([test "x$enable_redis_tls" = xyes], [AC_MSG_ERROR([--enable-redis-tls given but openssl was not found (install libssl-dev)])])
  ])
])
AS_IF([test "x$redis_tls" = xopenssl], [
  AC_DEFINE([HAVE_REDIS_TLS], [1], [Define if rediss:// is built (OpenSSL)])
  BACKEND_CFLAGS="$BACKEND_CFLAGS $OPENSSL_CFLAGS"
  BACKEND_LIBS="$BACKEND_LIBS $OPENSSL_LIBS"
  BACKEND_SRCS="$BACKEND_SRCS collectors/redis/tls/openssl.c"
], [AS_IF([test "x$have_redis" = xyes], [BACKEND_SRCS="$BACKEND_SRCS collectors/redis/tls/none.c"])])
AS_IF([test "x$have_redis" = xyes], [bt_note_redis=" (rediss://: $redis_tls)"])
