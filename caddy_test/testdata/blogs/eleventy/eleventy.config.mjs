// A post marked draft: true is left out of a build (no page, no place in
// any collection); `eleventy --serve` still shows it while it is written.
export default function (eleventyConfig) {
	eleventyConfig.addPreprocessor("drafts", "*", (data) => {
		if (data.draft && process.env.ELEVENTY_RUN_MODE === "build") {
			return false;
		}
	});
}
