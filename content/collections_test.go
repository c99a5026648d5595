package content

import (
	"slices"
	"testing"
)

// TestTermsAsTheGeneratorReadsThem: the topic of a post is its first
// category, or its first tag that does not only group files, each read as
// the post's generator reads it.
func TestTermsAsTheGeneratorReadsThem(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string // under insights/
		topic map[string]string // by slug
	}{
		{"a Hugo section's text is one category",
			map[string]string{"_index.md": "---\ntitle: Posts\n---\n", "a.md": post("title: A", "date: 2024-05-01", "categories: Machine Learning")},
			map[string]string{"a": "Machine Learning"}},
		{"an Eleventy folder's text is one tag",
			map[string]string{"insights.json": `{"layout": "post.njk"}`, "a.md": post("title: A", "date: 2024-05-01", "tags: web dev")},
			map[string]string{"a": "web dev"}},
		{"a folder of no known generator splits a text at its blanks, as Jekyll does",
			map[string]string{"a.md": post("title: A", "date: 2024-05-01", "tags: web dev")},
			map[string]string{"a": "web"}},
		{"tags a directory data file sets group files",
			map[string]string{
				"insights.11tydata.js": "export default {\n\tlayout: \"post.njk\",\n\ttags: [\"notes\"],\n};\n",
				"a.md":                 post("title: A", "date: 2024-05-01", "tags: [notes, css]"),
				"til/til.json":         `{"tags": "til"}`,
				"til/b.md":             post("title: B", "date: 2024-05-01", "tags: [til, grid]"),
				"til/c.md":             post("title: C", "date: 2024-05-01", "tags: [Til, notes]"),
				"other/d.md":           post("title: D", "date: 2024-05-01", "tags: [notes, til]"),
			},
			map[string]string{"a": "css", "b": "grid", "c": DefaultTopic, "d": "til"}},
		{"a data file of another folder's name sets nothing",
			map[string]string{"posts.json": `{"tags": ["notes"]}`, "a.md": post("title: A", "date: 2024-05-01", "tags: [notes, css]")},
			map[string]string{"a": "notes"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"profile.yaml": validProfile}
			for name, data := range tt.files {
				files["insights/"+name] = data
			}
			site, err := loadStrict(contentFS(files))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, in := range site.Insights {
				got[in.Slug] = in.Topic
			}
			for slug, topic := range tt.topic {
				if got[slug] != topic {
					t.Errorf("%s: topic %q, want %q", slug, got[slug], topic)
				}
			}
		})
	}
}

// TestDataFileTags: the tags of a directory data file, in JSON or as a
// literal in JavaScript; tags computed by code are none.
func TestDataFileTags(t *testing.T) {
	for _, tt := range []struct {
		name, data string
		want       []string
	}{
		{"posts.json", `{"layout": "post.njk", "tags": ["posts", "notes"]}`, []string{"posts", "notes"}},
		{"posts.11tydata.json", `{"tags": "posts"}`, []string{"posts"}},
		{"posts.json", `{"tags": 3}`, nil},
		{"posts.json", `not json`, nil},
		{"blog.11tydata.js", "export default {\n\ttags: [\n\t\t\"posts\"\n\t],\n\t\"layout\": \"layouts/post.njk\",\n};\n", []string{"posts"}},
		{"blog.11tydata.cjs", "module.exports = { 'tags': 'til', permalink: x };", []string{"til"}},
		{"blog.11tydata.mjs", "export default { tags: [`a`, 'b',], };", []string{"a", "b"}},
		{"blog.11tydata.js", "const mytags = ['x']; export default { data: { tags: computeTags() } };", nil},
		{"blog.11tydata.js", "export default { eleventyComputed: { title: d => d.tags.join() } };", nil},
		{"blog.11tydata.js", "export default { tags: [`${kind}`] };", nil},
	} {
		if got := dataFileTags(tt.name, []byte(tt.data)); !slices.Equal(got, tt.want) {
			t.Errorf("%s %q: %q, want %q", tt.name, tt.data, got, tt.want)
		}
	}
}
