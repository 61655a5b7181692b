dnl http:// and https:// load through libcurl's multi interface; nginx + php-fpm for tests and the demo.
BT_BACKEND([http], [libcurl], [HAVE_HTTP])
