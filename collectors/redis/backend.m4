dnl Redis: hiredis's reply reader on benchtop's own non-blocking sockets.
BT_BACKEND([redis], [hiredis], [HAVE_REDIS])
