// Every note is in the notes collection, which the notes page lists.
export default {
	tags: ["notes"],
};
