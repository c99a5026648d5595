<?php
/**
 * install.php DIR — the equivalent of the five-minute install, without wp-cli
 * and without HTTP. Run by start.sh with php-cli after DIR/wordpress/wp-config.php
 * is written and the database is up.
 *
 * Settings come from the environment (see start.sh): WP_TITLE, WP_TAGLINE,
 * WP_ADMIN_USER, WP_ADMIN_PASS, WP_ADMIN_EMAIL, WP_DISPLAY_NAME, WP_AUTHOR_BIO,
 * WP_AUTHOR_URL, WP_PUBLIC, WP_PERMALINKS.
 *
 * Content (posts, the About page) is made afterwards by post.php seed, in a
 * separate process: this one runs with WP_INSTALLING defined, which changes
 * how options and plugins are loaded.
 */
if ( PHP_SAPI !== 'cli' || $argc < 2 ) {
	fwrite( STDERR, "usage: php install.php DIR\n" );
	exit( 2 );
}
$dir = rtrim( $argv[1], '/' );

function env( $name, $default ) {
	$v = getenv( $name );
	return ( false === $v || '' === $v ) ? $default : $v;
}

// Only for the code that looks at the request; WP_HOME/WP_SITEURL decide the URLs.
$url                     = parse_url( env( 'WP_URL', 'http://127.0.0.1:9081' ) );
$_SERVER['HTTP_HOST']    = $url['host'] . ( isset( $url['port'] ) ? ':' . $url['port'] : '' );
$_SERVER['SERVER_NAME']  = $url['host'];
$_SERVER['REQUEST_URI']  = '/';
$_SERVER['SERVER_PORT']  = isset( $url['port'] ) ? $url['port'] : 80;

define( 'WP_INSTALLING', true );
require $dir . '/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';

// wp_install() ends with wp_install_maybe_enable_pretty_permalinks(), which
// fetches a post over HTTP from the site to see whether pretty permalinks work.
// Nothing serves it yet: refuse all HTTP so that fails at once, and set the
// structure ourselves below.
add_filter(
	'pre_http_request',
	function () {
		return new WP_Error( 'wp_harness', 'no HTTP during install' );
	}
);

if ( is_blog_installed() ) {
	fwrite( STDERR, "install.php: already installed\n" );
	exit( 1 );
}

$result = wp_install(
	env( 'WP_TITLE', 'Quiet Machines' ),
	env( 'WP_ADMIN_USER', 'odile' ),
	env( 'WP_ADMIN_EMAIL', 'odile@quiet-machines.example' ),
	// blog_public. 1: <meta name='robots' content='max-image-preview:large'>, robots.txt ends with
	// "Sitemap: .../wp-sitemap.xml", sitemaps on. 0 ("discourage search engines"): <meta name='robots'
	// content='noindex, nofollow'> on every page, no Sitemap line, /wp-sitemap.xml is a 404
	// (robots.txt still only disallows /wp-admin/ since WP 5.3). Feeds and REST API unaffected.
	(int) env( 'WP_PUBLIC', '1' ),
	'',
	wp_slash( env( 'WP_ADMIN_PASS', 'harness-pass' ) ),
	'' // en_US
);
$user_id = $result['user_id'];

update_option( 'blogdescription', env( 'WP_TAGLINE', 'Notes on running small web servers' ) );
update_option( 'timezone_string', 'UTC' );

// The author: display name (what themes, feeds' dc:creator and the REST API show), bio, website.
$display = env( 'WP_DISPLAY_NAME', 'Odile Varga' );
$parts   = explode( ' ', $display, 2 );
$r       = wp_update_user(
	array(
		'ID'           => $user_id,
		'display_name' => $display,
		'nickname'     => $display,
		'first_name'   => $parts[0],
		'last_name'    => isset( $parts[1] ) ? $parts[1] : '',
		'description'  => env( 'WP_AUTHOR_BIO', 'Odile looks after small web servers and writes down what they teach her.' ),
		'user_url'     => env( 'WP_AUTHOR_URL', 'https://quiet-machines.example/' ),
	)
);
if ( is_wp_error( $r ) ) {
	fwrite( STDERR, 'install.php: wp_update_user: ' . $r->get_error_message() . "\n" );
	exit( 1 );
}

// Pretty permalinks. Rewrite rules live in the rewrite_rules option; a soft
// flush regenerates it (a hard flush would also try to write .htaccess, which
// WordPress skips anyway when it does not think it runs under Apache).
global $wp_rewrite;
$wp_rewrite->set_permalink_structure( env( 'WP_PERMALINKS', '/%year%/%monthnum%/%postname%/' ) );
// Taxonomies add their permastructs (/category/x/, /tag/x/) only if a permalink
// structure was set when they were registered (at init, when it was still
// empty): without registering them again the rules have no category or tag
// archives and /category/go/ is a 404.
create_initial_taxonomies();
flush_rewrite_rules( false );

echo "installed: user $user_id, blog_public " . get_option( 'blog_public' ) . ', permalinks ' . get_option( 'permalink_structure' ) . "\n";
