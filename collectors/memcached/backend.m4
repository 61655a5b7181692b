dnl memcached speaks the protocol on raw sockets (libmemcached blocks): no library needed.
BT_BACKEND([memcached], [], [HAVE_MEMCACHED])
