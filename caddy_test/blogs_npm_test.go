package caddytest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The blogs here are built by generators that npm installs, pinned in the
// repository's package.json (make tools, that is npm ci, installs them):
// Eleventy, and Astro with its sitemap integration. They run on the Node 22
// that npm ci installs as well (Astro needs Node 22.12 or newer), whatever
// Node the machine has.

// buildNpmBlog builds the fixture blog name with the Node program script
// of the repository's node_modules, given the output folder by the flag
// output. The fixture holds no node_modules; how its copy finds the
// packages it imports:
//
//   - the generator is run from the repository's node_modules, so Node
//     resolves the generator's own dependencies there, beside it;
//   - packages the fixture's own files import by name (astro.config.mjs
//     imports astro/config and @astrojs/sitemap; the pages import astro's
//     modules) are resolved from the importing file's folder upward, as Node
//     and Vite resolve them: link names those packages, and each gets a
//     symbolic link in a node_modules folder of the copy's own. Node and
//     Vite follow a link to the package's real folder (as with pnpm's
//     layout), and resolve that package's dependencies from there. NODE_PATH
//     would not do: Node's ES module resolution ignores it, and so does Vite.
//     Nor would a link to the whole node_modules: Vite writes its cache to
//     node_modules/.vite and Astro its content store to node_modules/.astro,
//     which must land in the copy, not in the repository.
//
// What else the build writes goes to a home and a temporary folder of the
// test's: Astro's CLI turns on Node's compile cache, kept under the
// temporary folder, and telemetry is off. The build must leave the
// repository's node_modules as it was.
func buildNpmBlog(t *testing.T, name, script, output string, link []string, args ...string) (src, site string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	modules := filepath.Join(root, "node_modules")
	node := filepath.Join(root, node22)
	needed := []string{node, filepath.Join(root, script)}
	for _, pkg := range link {
		needed = append(needed, filepath.Join(modules, pkg))
	}
	for _, path := range needed {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s is needed to build the %s fixture blog: run `npm ci` in the repository root (package.json pins it): %v", path, name, err)
		}
	}
	home := t.TempDir()
	before, err := os.Stat(modules)
	if err != nil {
		t.Fatal(err)
	}
	src, site = buildBlogWith(t, name, blogBuild{
		command: append([]string{node, filepath.Join(root, script)}, args...),
		output:  output,
		env: []string{
			"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
			"TMPDIR=" + home, "ASTRO_TELEMETRY_DISABLED=1", "NO_COLOR=1",
		},
		prepare: func(src string) {
			for _, pkg := range link {
				at := filepath.Join(src, "node_modules", filepath.FromSlash(pkg))
				if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(modules, filepath.FromSlash(pkg)), at); err != nil {
					t.Fatal(err)
				}
			}
		},
	})
	if after, err := os.Stat(modules); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("building the %s fixture blog changed the repository's node_modules (%v)", name, err)
	}
	return src, site
}

// waitForEitherLog waits until the process has logged one of wants, and
// returns the log.
func waitForEitherLog(t *testing.T, p *process, wants ...string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		log := p.log.String()
		for _, want := range wants {
			if strings.Contains(log, want) {
				return log
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log lacks %s:\n%s", strings.Join(wants, " and "), log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkSitemapMatch waits for the module's match of its insights to the
// site's sitemap, which the first request starts, and checks its counts.
func checkSitemapMatch(t *testing.T, p *process, counts string) {
	t.Helper()
	if log := waitForLog(t, p, `"msg":"insights matched to the site's sitemap"`); !strings.Contains(log, counts) {
		t.Errorf("the log lacks %s:\n%s", counts, log)
	}
}

// checkLinksLog waits for the module's check of every page address it
// publishes, which follows the match, and checks its counts.
func checkLinksLog(t *testing.T, p *process, counts string) {
	t.Helper()
	log := waitForEitherLog(t, p, `"msg":"every page address the module publishes answers 200"`,
		`"msg":"page addresses the module publishes do not answer 200 from the site`)
	if want := `"msg":"every page address the module publishes answers 200",` + counts; !strings.Contains(log, want) {
		t.Errorf("the log lacks %s:\n%s", want, log)
	}
}

// absent checks that the generator wrote no page at each of the site's
// paths, as the fixture means it to.
func absent(t *testing.T, site string, paths ...string) {
	t.Helper()
	for _, path := range paths {
		if _, err := os.Stat(filepath.Join(site, filepath.FromSlash(path))); err == nil {
			t.Errorf("the generator wrote %s: the fixture means it to write no page there", path)
		}
	}
}

// TestEleventyBlog: an Eleventy blog laid out as eleventy-base-blog lays
// one out: posts in posts/ with a directory data file giving their layout
// and the posts tag, tags as lists beside it, unquoted dates, a post with
// its own permalink (relative, as Eleventy takes it), one with permalink:
// false (no page), a draft that the config leaves out of a build, a post
// whose file name begins with its date (Eleventy takes the date from it
// and keeps the whole name in the address), and a sitemap.xml written by
// a template. The owner writes one directive and the profile: the module
// reads the site's sitemap and publishes each post at Eleventy's address.
func TestEleventyBlog(t *testing.T) {
	src, site := buildNpmBlog(t, "eleventy", "node_modules/@11ty/eleventy/cmd.cjs", "--output", nil, "--quiet")
	absent(t, site, "posts/reading-list", "posts/unfinished")
	caddyfile := blogCaddyfile(9266, site, "content "+blogProfile(t)+"\n\t\tinsights "+filepath.Join(src, "posts"))
	p := startProcess(t, "Caddy", "http://localhost:9266", caddyfile)
	// The post with its own permalink is at the owner's word, not matched.
	checkSitemapMatch(t, p, `"matched":3,"not_in_sitemap":0,"addresses_changed":3`)
	insights := checkBlog(t, p, site, map[string]string{
		"plain-text-wins": "/posts/plain-text-wins/",
		"small-tools":     "/posts/small-tools/",
		"moved-post":      "/notes/kept-address/",
		"dated-name":      "/posts/2024-06-03-dated-name/",
	})
	for _, in := range insights {
		switch in.Slug {
		case "plain-text-wins":
			if in.Topic != "writing" || in.DateISO != "2023-04-11" {
				t.Errorf("%s: topic %q, date %q; want writing (the tag after posts) and the unquoted date 2023-04-11", in.Slug, in.Topic, in.DateISO)
			}
		case "dated-name":
			if in.DateISO != "2024-06-03" {
				t.Errorf("%s: date %q, want 2024-06-03, from the file name, as Eleventy takes it", in.Slug, in.DateISO)
			}
		}
	}
	checkLinksLog(t, p, `"pages":6,"checked":6,"ok":6`)
	checkNotConverted(t, p, site, "/posts/unlisted/")
}

// TestAstroBlog: an Astro blog as Astro's blog template makes one: a
// content collection in src/content/blog with pubDate and updatedDate
// written as text ('Sep 02 2023'), a post whose file name has capitals
// (Astro's id lowercases it), one in a folder (its id keeps the folder), a
// draft that the page's getStaticPaths leaves out, and @astrojs/sitemap,
// which writes sitemap-index.xml and sitemap-0.xml but no sitemap.xml. The
// module follows the index to the site's addresses.
func TestAstroBlog(t *testing.T) {
	src, site := buildNpmBlog(t, "astro", "node_modules/astro/bin/astro.mjs", "--outDir",
		[]string{"astro", "@astrojs/sitemap"}, "build")
	absent(t, site, "blog/half-finished", "sitemap.xml")
	if _, err := os.Stat(filepath.Join(site, "sitemap-index.xml")); err != nil {
		t.Errorf("@astrojs/sitemap wrote no sitemap-index.xml: %v", err)
	}
	caddyfile := blogCaddyfile(9267, site, "content "+blogProfile(t)+"\n\t\tinsights "+filepath.Join(src, "src", "content", "blog"))
	p := startProcess(t, "Caddy", "http://localhost:9267", caddyfile)
	checkSitemapMatch(t, p, `"matched":4,"not_in_sitemap":0,"addresses_changed":4`)
	insights := checkBlog(t, p, site, map[string]string{
		"first-light":         "/blog/first-light/",
		"keeping-a-changelog": "/blog/keeping-a-changelog/",
		"Quiet-Defaults":      "/blog/quiet-defaults/",
		"tabs-or-spaces":      "/blog/2024/tabs-or-spaces/",
	})
	for _, in := range insights {
		if in.Slug == "keeping-a-changelog" && (in.DateISO != "2023-09-02" || in.DateModifiedISO != "2024-01-10") {
			t.Errorf("%s: published %q, modified %q; want pubDate 2023-09-02 and updatedDate 2024-01-10", in.Slug, in.DateISO, in.DateModifiedISO)
		}
	}
	checkLinksLog(t, p, `"pages":6,"checked":6,"ok":6`)
}
