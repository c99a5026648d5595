package wire

// SkillsIndex is the Agent Skills discovery index.
type SkillsIndex struct {
	Schema string       `json:"$schema" schema:"format=uri"`
	Skills []SkillEntry `json:"skills"`
}

type SkillEntry struct {
	Name        string `json:"name" schema:"pattern=^[a-z0-9]+(-[a-z0-9]+)*$;minLength=1;maxLength=64"`
	Type        string `json:"type" schema:"enum=skill-md"`
	Description string `json:"description" schema:"minLength=1;maxLength=1024"`
	URL         string `json:"url" schema:"format=uri"`
	Digest      string `json:"digest" schema:"pattern=^sha256:[0-9a-f]{64}$" jsonschema:"The SHA-256 of the SKILL.md bytes served at url."`
}
