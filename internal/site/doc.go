// Package site reads the site behind the module, as an anonymous visitor
// would, and makes the catalog the module publishes from what it read and
// from what the owner wrote for the module.
//
// The reader asks the site through a Transport: in the Caddy module, the
// server's own handler chain, so that file_server, reverse_proxy and
// php_fastcgi are read alike, with no network, and every matcher in front of
// the site (remote_ip, basic_auth, a login) sees a visitor with no address
// of the site's networks, no credentials, no cookies and no TLS identity. It
// honours the site's robots.txt for its own user agent, noindex and
// X-Robots-Tag, follows redirects only on the site, and reads within
// bounds (see Bounds): pages at a time, bytes and time per answer, pages in
// all, addresses in all, time per read.
//
// What it reads: robots.txt, the home page, the site's feeds (RSS 2.0,
// Atom with RFC 5005 paging, JSON Feed 1.1, WordPress's paged feeds), its
// sitemaps, and the pages those and a bounded crawl of the site's own links
// lead to. A post is a page a feed lists or whose own metadata says it is
// an article (JSON-LD, OpenGraph, microformats); the person is who the
// site's own statements name (JSON-LD Person, h-card, rel="me", the feeds'
// authors), with the site's name as the last resort. Build merges that with
// the owner's files, field by field, the owner's word first. What each
// document says is read by internal/sitefacts.
//
// A read runs in the background: the first in full, then, every refresh
// interval, conditional requests for the feeds and sitemaps, which cost the
// site a 304 each when nothing changed; what changed is read again. A
// failed read never replaces what an earlier one found: a post is dropped
// only when the site answers its address with 404 or 410.
//
// Imports from the module: content, internal/convert, internal/markdown, internal/sitecheck, internal/sitefacts.
package site
