<?php
/**
 * post.php DIR COMMAND [ARGS] — change the content of a wp-harness instance
 * from the command line (php-cli, straight into the database; no HTTP).
 * Every command prints JSON on stdout.
 *
 *   seed [N]                   delete WordPress's sample content, make the posts
 *                              of posts.json (the first N of them; categories,
 *                              tags, dates in the past, paragraphs, a heading
 *                              and a code block) and an About page
 *   publish --title T [--content HTML] [--date 'Y-m-d H:i:s' (UTC; default now)]
 *           [--slug S] [--excerpt E] [--category NAME] [--tags a,b] [--type post|page]
 *                              publish one more post; prints {post_id, slug, url, ...}
 *   update ID|SLUG [--title T] [--content HTML] [--excerpt E]
 *                              edit a post (post_modified becomes now)
 *   delete ID|SLUG [--trash]   delete a post for good (or move it to the trash)
 *   list                       the site: URLs, author, every published post and page
 */
if ( PHP_SAPI !== 'cli' || $argc < 3 ) {
	fwrite( STDERR, "usage: php post.php DIR seed [N] | publish --title T ... | update ID|SLUG ... | delete ID|SLUG [--trash] | list\n" );
	exit( 2 );
}
$dir  = rtrim( $argv[1], '/' );
$cmd  = $argv[2];
$args = array_slice( $argv, 3 );

require $dir . '/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/taxonomy.php';

// Act as the administrator: with unfiltered_html, kses leaves the block
// comments and markup alone (kses_init runs on set_current_user).
$admins = get_users( array( 'role' => 'administrator', 'orderby' => 'ID', 'number' => 1 ) );
if ( ! $admins ) {
	fail( 'no administrator: is the site installed?' );
}
wp_set_current_user( $admins[0]->ID );

function fail( $msg ) {
	fwrite( STDERR, "post.php: $msg\n" );
	exit( 1 );
}

function out( $v ) {
	echo wp_json_encode( $v, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE ), "\n";
}

function opts( $args ) {
	$o   = array( '_' => array() );
	$len = count( $args );
	for ( $i = 0; $i < $len; $i++ ) {
		if ( 0 === strpos( $args[ $i ], '--' ) ) {
			$k = substr( $args[ $i ], 2 );
			if ( false !== strpos( $k, '=' ) ) {
				list( $k, $v ) = explode( '=', $k, 2 );
				$o[ $k ]       = $v;
			} elseif ( $i + 1 < $len && 0 !== strpos( $args[ $i + 1 ], '--' ) ) {
				$o[ $k ] = $args[ ++$i ];
			} else {
				$o[ $k ] = true;
			}
		} else {
			$o['_'][] = $args[ $i ];
		}
	}
	return $o;
}

function find_post( $ref ) {
	if ( ctype_digit( (string) $ref ) ) {
		$p = get_post( (int) $ref );
	} else {
		$ps = get_posts(
			array(
				'name'        => $ref,
				'post_type'   => array( 'post', 'page' ),
				'post_status' => 'any',
				'numberposts' => 1,
			)
		);
		$p  = $ps ? $ps[0] : null;
	}
	if ( ! $p ) {
		fail( "no post $ref" );
	}
	return $p;
}

function describe( $p ) {
	$p = get_post( $p );
	$d = array(
		'post_id'      => $p->ID,
		'type'         => $p->post_type,
		'status'       => $p->post_status,
		'slug'         => $p->post_name,
		'title'        => $p->post_title,
		'url'          => get_permalink( $p ),
		'date_gmt'     => mysql2date( 'c', $p->post_date_gmt, false ),
		'modified_gmt' => mysql2date( 'c', $p->post_modified_gmt, false ),
		'author'       => get_the_author_meta( 'display_name', $p->post_author ),
	);
	if ( 'post' === $p->post_type ) {
		$d['categories'] = wp_get_post_categories( $p->ID, array( 'fields' => 'names' ) );
		$d['tags']       = wp_get_post_tags( $p->ID, array( 'fields' => 'names' ) );
		$d['excerpt']    = $p->post_excerpt;
	}
	return $d;
}

function category_id( $name ) {
	$id = category_exists( $name );
	if ( ! $id ) {
		$id = wp_create_category( $name );
	}
	return (int) $id;
}

/** Insert (wp_insert_post wants slashed data) and fail loudly. */
function insert( $arr ) {
	$id = wp_insert_post( wp_slash( $arr ), true );
	if ( is_wp_error( $id ) ) {
		fail( 'wp_insert_post: ' . $id->get_error_message() );
	}
	return $id;
}

/**
 * Block markup of a seeded post: its lead (with a link) and detail
 * paragraphs, a heading, a code block whose text is HTML with a script and
 * a link in it (shown as code, never run), and a closing paragraph.
 */
function body( $n, $post ) {
	$slug = sanitize_title( $post['title'] );
	$code = "<a href=\"https://example.org/notes/$slug\">the notes for this post</a>\n<script>\n  document.querySelector('a').dataset.post = '$n';\n</script>";
	return "<!-- wp:paragraph -->\n<p>" . esc_html( $post['lead'] ) . ' The <a href="https://example.org/notes/' . $slug . '">notes for this post</a> have the full configuration.</p>' . "\n<!-- /wp:paragraph -->\n\n"
		. "<!-- wp:paragraph -->\n<p>" . esc_html( $post['detail'] ) . "</p>\n<!-- /wp:paragraph -->\n\n"
		. "<!-- wp:heading -->\n<h2>The example page</h2>\n<!-- /wp:heading -->\n\n"
		. "<!-- wp:paragraph -->\n<p>The page used for the measurements was as small as it could be while still loading a script:</p>\n<!-- /wp:paragraph -->\n\n"
		. "<!-- wp:code -->\n<pre class=\"wp-block-code\"><code>" . esc_html( $code ) . "</code></pre>\n<!-- /wp:code -->\n\n"
		. "<!-- wp:paragraph -->\n<p>Questions and corrections are welcome by mail; the <em>archive</em> lists every post by month.</p>\n<!-- /wp:paragraph -->";
}

$o = opts( $args );
switch ( $cmd ) {
	case 'seed':
		// The posts are the project's own text, in posts.json beside this
		// script; N, when given, takes the first N of them.
		$posts = json_decode( file_get_contents( __DIR__ . '/posts.json' ), true );
		if ( ! is_array( $posts ) ) {
			fail( 'posts.json is not a JSON list' );
		}
		$n = isset( $o['_'][0] ) ? min( (int) $o['_'][0], count( $posts ) ) : count( $posts );
		// wp_install_defaults made "Hello world!" (with a comment), "Sample Page" and a draft Privacy Policy.
		foreach ( get_posts( array( 'post_type' => array( 'post', 'page' ), 'post_status' => 'any', 'numberposts' => -1 ) ) as $p ) {
			wp_delete_post( $p->ID, true );
		}
		update_option( 'wp_page_for_privacy_policy', 0 );
		for ( $i = 0; $i < $n; $i++ ) {
			$post = $posts[ $i ];
			insert(
				array(
					'post_type'      => 'post',
					'post_status'    => 'publish',
					'post_author'    => $admins[0]->ID,
					'post_title'     => $post['title'],
					'post_content'   => body( $i + 1, $post ),
					'post_excerpt'   => 0 === $i % 3 ? $post['lead'] : '',
					'post_date'      => $post['date'],
					'post_date_gmt'  => $post['date'],
					'post_category'  => array( category_id( $post['category'] ) ),
					'tags_input'     => $post['tags'],
					'comment_status' => 'open',
				)
			);
		}
		$name = esc_html( get_the_author_meta( 'display_name', $admins[0]->ID ) );
		insert(
			array(
				'post_type'     => 'page',
				'post_status'   => 'publish',
				'post_author'   => $admins[0]->ID,
				'post_name'     => 'about',
				'post_title'    => 'About',
				'post_content'  => "<!-- wp:paragraph -->\n<p>$name looks after a handful of small web servers, some at home and some at work, and writes down what each of them taught her.</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:paragraph -->\n<p>The posts here are notes first: the configuration that worked, the mistake that came before it, and the numbers measured on the way.</p>\n<!-- /wp:paragraph -->",
				'post_date'     => '2023-12-01 12:00:00',
				'post_date_gmt' => '2023-12-01 12:00:00',
			)
		);
		out( array( 'seeded' => $n ) );
		break;

	case 'publish':
		if ( empty( $o['title'] ) || true === $o['title'] ) {
			fail( 'publish needs --title' );
		}
		$arr = array(
			'post_type'    => isset( $o['type'] ) ? $o['type'] : 'post',
			'post_status'  => 'publish',
			'post_author'  => $admins[0]->ID,
			'post_title'   => $o['title'],
			'post_content' => isset( $o['content'] ) ? $o['content'] : "<!-- wp:paragraph -->\n<p>" . esc_html( $o['title'] ) . " — published by post.php.</p>\n<!-- /wp:paragraph -->",
			'post_excerpt' => isset( $o['excerpt'] ) ? $o['excerpt'] : '',
		);
		if ( isset( $o['date'] ) ) {
			$arr['post_date']     = $o['date'];
			$arr['post_date_gmt'] = $o['date'];
		}
		if ( isset( $o['slug'] ) ) {
			$arr['post_name'] = $o['slug'];
		}
		if ( isset( $o['category'] ) ) {
			$arr['post_category'] = array( category_id( $o['category'] ) );
		}
		if ( isset( $o['tags'] ) ) {
			$arr['tags_input'] = array_filter( explode( ',', $o['tags'] ) );
		}
		out( describe( insert( $arr ) ) );
		break;

	case 'update':
		$p   = find_post( isset( $o['_'][0] ) ? $o['_'][0] : fail( 'update needs ID or slug' ) );
		$arr = array( 'ID' => $p->ID );
		foreach ( array( 'title', 'content', 'excerpt' ) as $k ) {
			if ( isset( $o[ $k ] ) ) {
				$arr[ 'post_' . $k ] = $o[ $k ];
			}
		}
		$r = wp_update_post( wp_slash( $arr ), true );
		if ( is_wp_error( $r ) ) {
			fail( 'wp_update_post: ' . $r->get_error_message() );
		}
		out( describe( $p->ID ) );
		break;

	case 'delete':
		$p     = find_post( isset( $o['_'][0] ) ? $o['_'][0] : fail( 'delete needs ID or slug' ) );
		$d     = describe( $p );
		$trash = ! empty( $o['trash'] );
		$r     = $trash ? wp_trash_post( $p->ID ) : wp_delete_post( $p->ID, true );
		if ( ! $r ) {
			fail( "could not delete $p->ID" );
		}
		out( array( 'deleted' => $d, 'trashed' => $trash ) );
		break;

	case 'list':
		$author = $admins[0];
		$posts  = get_posts(
			array(
				'post_type'   => 'post',
				'post_status' => 'publish',
				'numberposts' => -1,
				'orderby'     => 'date',
				'order'       => 'DESC',
			)
		);
		$pages  = get_posts( array( 'post_type' => 'page', 'post_status' => 'publish', 'numberposts' => -1 ) );
		out(
			array(
				'url'         => home_url( '/' ),
				'title'       => get_option( 'blogname' ),
				'tagline'     => get_option( 'blogdescription' ),
				'blog_public' => (int) get_option( 'blog_public' ),
				'permalinks'  => get_option( 'permalink_structure' ),
				'feed'        => get_feed_link(),
				'sitemap'     => home_url( '/wp-sitemap.xml' ),
				'rest'        => rest_url( 'wp/v2/posts' ),
				'author'      => array(
					'login'        => $author->user_login,
					'slug'         => $author->user_nicename,
					'display_name' => $author->display_name,
					'description'  => $author->description,
					'user_url'     => $author->user_url,
					'posts_url'    => get_author_posts_url( $author->ID ),
				),
				'posts'       => array_map( 'describe', $posts ),
				'pages'       => array_map( 'describe', $pages ),
			)
		);
		break;

	default:
		fail( "unknown command $cmd" );
}
