// Package sitefacts reads what a site's bytes say, each document alone:
// its feeds (feed.go), an HTML page's facts, from its metadata, JSON-LD
// and microformats (page.go, jsonld.go, mf2.go), its robots.txt
// (robots.go) and its sitemaps (sitemap.go). Every parser works within
// bounds of its own and never fetches anything; internal/site asks the
// site for the bytes and makes the catalog of what these say.
//
// Imports from the module: internal/convert.
package sitefacts
