dnl SQLite: a job thread per connection (the library only blocks).
BT_BACKEND([sqlite], [sqlite3], [HAVE_SQLITE])
