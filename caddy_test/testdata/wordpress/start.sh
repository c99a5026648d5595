#!/bin/sh
# start.sh DIR [URL]
#
# Starts a throwaway WordPress (Debian 12 packages: wordpress 6.1, mariadb-server
# 10.11, php-fpm 8.2) entirely inside DIR, which must be empty (or absent):
#
#   DIR/mysql/          MariaDB datadir        DIR/mysql.sock  DIR/mysql.pid  DIR/mysql.err
#   DIR/php-fpm.conf    php-fpm config         DIR/php-fpm.sock DIR/php-fpm.pid DIR/php-fpm.log
#   DIR/php-error.log   PHP errors from the pool
#   DIR/wordpress/      the docroot (Caddy: root * DIR/wordpress)
#   DIR/site.json       what install.php made: URLs, ids, slugs, admin login
#   DIR/env             shell-sourceable summary (WP_DIR, WP_URL, WP_DOCROOT, WP_FPM_SOCK, ...)
#
# Nothing listens on TCP: MariaDB runs with --skip-networking, php-fpm on a unix socket.
# Nothing is written outside DIR (not /etc/wordpress, not /var/lib/wordpress).
#
# URL (default http://127.0.0.1:9081) is the address the site will be served at
# (WP_HOME/WP_SITEURL in wp-config.php; change that file to move it later).
#
# Environment knobs (all optional):
#   WP_POSTS (default: every post of posts.json)  WP_TITLE='Quiet Machines'  WP_TAGLINE='...'
#   WP_ADMIN_USER=odile  WP_ADMIN_PASS=harness-pass  WP_ADMIN_EMAIL=odile@quiet-machines.example
#   WP_DISPLAY_NAME='Odile Varga'  WP_AUTHOR_BIO='...'  WP_AUTHOR_URL=https://quiet-machines.example/
#   WP_PUBLIC=1 (blog_public; 0 = "discourage search engines": noindex meta, no sitemap)
#   PHP=php  PHP_FPM=php-fpm8.2  WP_SRC=/usr/share/wordpress
#   WP_DB_TEMPLATE=/some/cache/dir  made by mariadb-install-db on first use, then
#                  copied (cp -a) instead of running mariadb-install-db (~2 s) again
#
# Stop with stop.sh DIR.
set -eu

if [ $# -lt 1 ]; then
	echo "usage: $0 DIR [URL]" >&2
	exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
DIR=$(cd "$1" && pwd)
URL=${2:-${WP_URL:-http://127.0.0.1:9081}}
URL=${URL%/}
WP_SRC=${WP_SRC:-/usr/share/wordpress}
PHP=${PHP:-php}
PHP_FPM=${PHP_FPM:-php-fpm8.2}

if [ -n "$(ls -A "$DIR")" ]; then
	echo "start.sh: $DIR is not empty" >&2
	exit 2
fi
# sun_path is 108 bytes: the longest socket path must fit.
if [ $(( ${#DIR} + 14 )) -gt 107 ]; then
	echo "start.sh: $DIR is too long for a unix socket path (max ~93 chars)" >&2
	exit 2
fi

t0=$(date +%s.%N)
stamp() { awk -v t0="$t0" -v t1="$(date +%s.%N)" -v m="$*" 'BEGIN { printf "[%6.2fs] %s\n", t1 - t0, m }'; }

ROOTFLAGS_DB=
ROOTFLAGS_FPM=
FPM_USER=
if [ "$(id -u)" = 0 ]; then
	# mariadbd refuses to run as root unless told to; php-fpm needs -R and a pool user.
	ROOTFLAGS_DB=--user=root
	ROOTFLAGS_FPM=-R
	FPM_USER="user = root
group = root"
fi

# ---------------------------------------------------------------- MariaDB
# --no-defaults everywhere: /etc/mysql/my.cnf names /run/mysqld/mysqld.sock,
# a port, log files under /var/log... none of which we want.
INNODB="--innodb-log-file-size=8M --innodb-buffer-pool-size=32M"
install_db() {
	# shellcheck disable=SC2086
	mariadb-install-db --no-defaults $ROOTFLAGS_DB --datadir="$1" $INNODB \
		--auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
		>"$DIR/mysql-install.log" 2>&1 || {
		cat "$DIR/mysql-install.log" >&2
		exit 1
	}
}
if [ -n "${WP_DB_TEMPLATE:-}" ]; then
	# mariadb-install-db costs ~2 s; a fresh (never started) datadir copied is the same thing.
	if [ ! -d "$WP_DB_TEMPLATE" ]; then
		tmpl=$WP_DB_TEMPLATE.tmp.$$
		install_db "$tmpl"
		mv -T "$tmpl" "$WP_DB_TEMPLATE" 2>/dev/null || rm -rf "$tmpl" # another run won the race
	fi
	cp -a "$WP_DB_TEMPLATE" "$DIR/mysql"
else
	install_db "$DIR/mysql"
fi
stamp "datadir initialised"

# shellcheck disable=SC2086
mariadbd --no-defaults $ROOTFLAGS_DB --datadir="$DIR/mysql" $INNODB \
	--socket="$DIR/mysql.sock" --skip-networking \
	--pid-file="$DIR/mysql.pid" --log-error="$DIR/mysql.err" \
	--tmpdir="$DIR" --skip-log-bin --performance-schema=OFF \
	--innodb-flush-log-at-trx-commit=0 --skip-innodb-doublewrite \
	--character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
	</dev/null >/dev/null 2>&1 &
i=0
until mariadb-admin --no-defaults --socket="$DIR/mysql.sock" -uroot ping >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 300 ]; then
		echo "start.sh: mariadbd did not come up; $DIR/mysql.err:" >&2
		tail -20 "$DIR/mysql.err" >&2
		exit 1
	fi
	sleep 0.1
done
stamp "mariadbd up (pid $(cat "$DIR/mysql.pid"))"

DB_NAME=wordpress DB_USER=wp DB_PASS=wp-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
mariadb --no-defaults --socket="$DIR/mysql.sock" -uroot <<SQL
CREATE DATABASE $DB_NAME CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASS';
GRANT ALL PRIVILEGES ON $DB_NAME.* TO '$DB_USER'@'localhost';
SQL

# ---------------------------------------------------------------- docroot
# PHP resolves symlinks in __FILE__/__DIR__, and wp-load.php sets
# ABSPATH = __DIR__ . '/' and then loads ABSPATH . 'wp-config.php'. So the
# top-level PHP files (and wp-admin's, which find wp-load.php through
# dirname(__DIR__)) must be real copies in DIR or WordPress would load Debian's
# /usr/share/wordpress/wp-config.php, which only reads /etc/wordpress/config-*.php.
# wp-includes never climbs out of itself, so it (46 MB) and wp-admin's
# asset/include dirs are symlinked.
W=$DIR/wordpress
mkdir -p "$W/wp-admin" "$W/wp-content/themes" "$W/wp-content/plugins" \
	"$W/wp-content/uploads" "$W/wp-content/mu-plugins"
find "$WP_SRC" -mindepth 1 -maxdepth 1 ! -name .htaccess ! -name wp-config.php ! -name wp-admin ! -name wp-content \
	! -name wp-includes -exec cp -a -t "$W" {} +
ln -s "$WP_SRC/wp-includes" "$W/wp-includes"
find "$WP_SRC/wp-admin" -mindepth 1 -maxdepth 1 ! -name css ! -name images ! -name includes ! -name js \
	-exec cp -a -t "$W/wp-admin" {} +
for d in css images includes js; do ln -s "$WP_SRC/wp-admin/$d" "$W/wp-admin/$d"; done
# Themes/plugins the way Debian does it in /var/lib/wordpress/wp-content: symlinks.
for t in "$WP_SRC"/wp-content/themes/*; do ln -s "$t" "$W/wp-content/themes/"; done
cp "$WP_SRC/wp-content/plugins/index.php" "$W/wp-content/index.php"
cp "$WP_SRC/wp-content/plugins/index.php" "$W/wp-content/plugins/index.php"
cp "$HERE/harness-mu.php" "$W/wp-content/mu-plugins/harness.php"

salt() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }
cat >"$W/wp-config.php" <<PHP
<?php
// Written by wp-harness/start.sh for a throwaway instance in $DIR.
define( 'DB_NAME', '$DB_NAME' );
define( 'DB_USER', '$DB_USER' );
define( 'DB_PASSWORD', '$DB_PASS' );
define( 'DB_HOST', 'localhost:$DIR/mysql.sock' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
\$table_prefix = 'wp_';

define( 'AUTH_KEY', '$(salt)' );
define( 'SECURE_AUTH_KEY', '$(salt)' );
define( 'LOGGED_IN_KEY', '$(salt)' );
define( 'NONCE_KEY', '$(salt)' );
define( 'AUTH_SALT', '$(salt)' );
define( 'SECURE_AUTH_SALT', '$(salt)' );
define( 'LOGGED_IN_SALT', '$(salt)' );
define( 'NONCE_SALT', '$(salt)' );

// Where the site is served; overrides the home/siteurl options.
define( 'WP_HOME', '$URL' );
define( 'WP_SITEURL', '$URL' );

// No background HTTP: no wp-cron loopback requests, no update checks, and
// WP_Http refuses anything but localhost (the machine has no network anyway).
define( 'DISABLE_WP_CRON', true );
define( 'AUTOMATIC_UPDATER_DISABLED', true );
define( 'WP_AUTO_UPDATE_CORE', false );
define( 'WP_HTTP_BLOCK_EXTERNAL', true );
define( 'FS_METHOD', 'direct' );
define( 'WP_DEBUG', false );

if ( ! defined( 'ABSPATH' ) ) {
	define( 'ABSPATH', __DIR__ . '/' );
}
require_once ABSPATH . 'wp-settings.php';
PHP
stamp "docroot ready"

# ---------------------------------------------------------------- php-fpm
cat >"$DIR/php-fpm.conf" <<CONF
[global]
pid = $DIR/php-fpm.pid
error_log = $DIR/php-fpm.log
daemonize = yes

[wp]
$FPM_USER
listen = $DIR/php-fpm.sock
listen.mode = 0666
pm = static
pm.max_children = 4
clear_env = no
catch_workers_output = yes
php_admin_flag[log_errors] = on
php_admin_value[error_log] = $DIR/php-error.log
php_admin_value[upload_tmp_dir] = $DIR
php_value[session.save_path] = $DIR
CONF
# Runs the Debian /etc/php/8.2/fpm/php.ini (+ conf.d) but none of /etc/php/8.2/fpm/pool.d.
# shellcheck disable=SC2086
"$PHP_FPM" $ROOTFLAGS_FPM -y "$DIR/php-fpm.conf" || {
	cat "$DIR/php-fpm.log" >&2
	exit 1
}
i=0
until [ -S "$DIR/php-fpm.sock" ] && [ -s "$DIR/php-fpm.pid" ]; do
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		echo "start.sh: php-fpm did not come up" >&2
		cat "$DIR/php-fpm.log" >&2
		exit 1
	fi
	sleep 0.1
done
stamp "php-fpm up (pid $(cat "$DIR/php-fpm.pid"))"

# ---------------------------------------------------------------- install + content
phpcli() { WP_DIR=$DIR WP_URL=$URL "$PHP" -d display_errors=stderr -d log_errors=0 \
	-d 'error_reporting=E_ALL & ~E_DEPRECATED' -d memory_limit=256M "$@"; }
phpcli "$HERE/install.php" "$DIR" >"$DIR/install.log"
stamp "$(cat "$DIR/install.log")"
phpcli "$HERE/post.php" "$DIR" seed ${WP_POSTS:-} >/dev/null
phpcli "$HERE/post.php" "$DIR" list >"$DIR/site.json"
stamp "content seeded: $(grep -c '"post_id"' "$DIR/site.json") posts and pages"

cat >"$DIR/env" <<ENV
WP_DIR='$DIR'
WP_URL='$URL'
WP_DOCROOT='$W'
WP_FPM_SOCK='$DIR/php-fpm.sock'
WP_DB_SOCK='$DIR/mysql.sock'
WP_DB_NAME='$DB_NAME'
WP_DB_USER='$DB_USER'
WP_DB_PASS='$DB_PASS'
WP_ADMIN_USER='${WP_ADMIN_USER:-odile}'
WP_ADMIN_PASS='${WP_ADMIN_PASS:-harness-pass}'
WP_HARNESS='$HERE'
ENV
stamp "ready: $URL (docroot $W, php-fpm $DIR/php-fpm.sock)"
