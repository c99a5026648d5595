// Package tools pins the build tools the Makefile runs (xcaddy) in a module
// of their own, so they do not become dependencies of the Caddy module.
package tools
