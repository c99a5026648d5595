package wire

// AgentCard is an A2A AgentCard. The official JSON Schema allows no other
// members, so the card carries nothing of older drafts (a top-level url,
// protocolVersion or preferredTransport).
type AgentCard struct {
	Name                string                       `json:"name" jsonschema:"The agent's name, as people read it."`
	Description         string                       `json:"description" jsonschema:"What the agent offers, and how to reach it."`
	SupportedInterfaces []AgentInterface             `json:"supportedInterfaces" schema:"minItems=1" jsonschema:"Where and how the skills are called, preferred first."`
	Provider            AgentProvider                `json:"provider"`
	Version             string                       `json:"version" jsonschema:"The service's version."`
	DocumentationURL    string                       `json:"documentationUrl" schema:"format=uri" jsonschema:"The developer portal."`
	Capabilities        AgentCapabilities            `json:"capabilities"`
	SecuritySchemes     map[string]AgentSecurityType `json:"securitySchemes" jsonschema:"How a caller may authenticate; no security requirement is stated, since none is needed."`
	DefaultInputModes   []string                     `json:"defaultInputModes" jsonschema:"Media types the skills take."`
	DefaultOutputModes  []string                     `json:"defaultOutputModes" jsonschema:"Media types the skills return."`
	Skills              []AgentSkill                 `json:"skills" jsonschema:"What the agent can do: the MCP server's tools."`
}

type AgentInterface struct {
	URL             string `json:"url" schema:"format=uri" jsonschema:"The MCP endpoint."`
	ProtocolBinding string `json:"protocolBinding" jsonschema:"The MCP Streamable HTTP transport, named by a URI: not an A2A binding."`
	ProtocolVersion string `json:"protocolVersion" jsonschema:"The A2A version of the card."`
}

type AgentProvider struct {
	URL          string `json:"url" schema:"format=uri" jsonschema:"The site."`
	Organization string `json:"organization" jsonschema:"Who the site is about."`
}

// AgentCapabilities are the A2A capabilities: none, stated explicitly.
type AgentCapabilities struct {
	Streaming         bool `json:"streaming" jsonschema:"false: answers are single JSON documents."`
	PushNotifications bool `json:"pushNotifications" jsonschema:"false."`
	ExtendedAgentCard bool `json:"extendedAgentCard" jsonschema:"false: there is nothing more to show an authenticated caller."`
}

// AgentSecurityType is one A2A SecurityScheme (a one-of): here always OAuth 2.0.
type AgentSecurityType struct {
	OAuth2 AgentOAuth2 `json:"oauth2SecurityScheme"`
}

type AgentOAuth2 struct {
	Description string     `json:"description"`
	Flows       AgentFlows `json:"flows"`
	MetadataURL string     `json:"oauth2MetadataUrl" schema:"format=uri" jsonschema:"The RFC 8414 authorization server metadata."`
}

// AgentFlows is A2A's OAuthFlows, also a one-of.
type AgentFlows struct {
	AuthorizationCode AgentCodeFlow `json:"authorizationCode"`
}

type AgentCodeFlow struct {
	AuthorizationURL string            `json:"authorizationUrl" schema:"format=uri"`
	TokenURL         string            `json:"tokenUrl" schema:"format=uri"`
	Scopes           map[string]string `json:"scopes" jsonschema:"Each scope with what it grants."`
	PKCERequired     bool              `json:"pkceRequired" schema:"const=true"`
}

type AgentSkill struct {
	ID          string   `json:"id" jsonschema:"The MCP tool's name."`
	Name        string   `json:"name" jsonschema:"The MCP tool's title."`
	Description string   `json:"description" jsonschema:"The MCP tool's description."`
	Tags        []string `json:"tags" jsonschema:"Keywords: mcp, read-only and the words of the tool's name."`
}
