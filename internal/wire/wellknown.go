package wire

// Link is one target of an RFC 9264 linkset relation.
type Link struct {
	Href string `json:"href" schema:"format=uri" jsonschema:"Address of the linked resource."`
	Type string `json:"type,omitempty" jsonschema:"Media type of the linked resource."`
}

type APICatalog struct {
	Linkset []LinksetEntry `json:"linkset" schema:"minItems=1"`
}

type LinksetEntry struct {
	Anchor      string `json:"anchor" schema:"format=uri" jsonschema:"The API the links describe."`
	ServiceDesc []Link `json:"service-desc" jsonschema:"Its machine-readable description."`
	ServiceDoc  []Link `json:"service-doc" jsonschema:"Its documentation for people."`
	Status      []Link `json:"status" jsonschema:"Its health check."`
}

type ProtectedResourceMetadata struct {
	Resource               string   `json:"resource" schema:"format=uri" jsonschema:"The protected resource: this site, or its MCP endpoint."`
	ResourceName           string   `json:"resource_name" jsonschema:"Human-readable name of the resource."`
	AuthorizationServers   []string `json:"authorization_servers" schema:"format=uri" jsonschema:"The authorization server that issues tokens for it: this site."`
	ScopesSupported        []string `json:"scopes_supported" jsonschema:"The scopes a token may carry: public:read."`
	BearerMethodsSupported []string `json:"bearer_methods_supported" schema:"enum=header|body|query" jsonschema:"How a bearer token may be sent: in the Authorization header."`
	ResourceDocumentation  string   `json:"resource_documentation" schema:"format=uri" jsonschema:"The developer portal."`
}

type AuthorizationServerMetadata struct {
	Issuer                            string   `json:"issuer" schema:"format=uri" jsonschema:"The authorization server's identifier: this site."`
	AuthorizationEndpoint             string   `json:"authorization_endpoint" schema:"format=uri" jsonschema:"Where the authorization code flow starts."`
	TokenEndpoint                     string   `json:"token_endpoint" schema:"format=uri" jsonschema:"Where codes, client credentials and identity assertions are exchanged for tokens."`
	RegistrationEndpoint              string   `json:"registration_endpoint" schema:"format=uri" jsonschema:"Dynamic client registration (RFC 7591)."`
	ResponseTypesSupported            []string `json:"response_types_supported" schema:"enum=code" jsonschema:"Only the authorization code."`
	ResponseModesSupported            []string `json:"response_modes_supported" schema:"enum=query" jsonschema:"The code comes back in the redirect's query."`
	GrantTypesSupported               []string `json:"grant_types_supported" jsonschema:"The grants the token endpoint accepts."`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported" schema:"enum=S256" jsonschema:"PKCE with S256 only."`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported" schema:"enum=none" jsonschema:"No client authentication: clients are public."`
	ScopesSupported                   []string `json:"scopes_supported" jsonschema:"The scopes a token may carry: public:read."`
	JWKSURI                           string   `json:"jwks_uri" schema:"format=uri" jsonschema:"The key set, empty: tokens are opaque."`
	ServiceDocumentation              string   `json:"service_documentation" schema:"format=uri" jsonschema:"The developer portal."`
	// RFC 9207: the authorization response names its issuer, against mix-up.
	AuthorizationResponseISSParameterSupported bool      `json:"authorization_response_iss_parameter_supported" schema:"const=true" jsonschema:"The redirect carries iss (RFC 9207)."`
	ClientIDMetadataDocumentSupported          bool      `json:"client_id_metadata_document_supported" jsonschema:"Whether a client_id may be the https URL of the client's metadata document (draft-ietf-oauth-client-id-metadata-document)."`
	AgentAuth                                  AgentAuth `json:"agent_auth" jsonschema:"How an agent registers here, by the auth.md protocol."`
}

// AgentAuth is the auth.md protocol's agent_auth block: where an agent
// registers and as what. It carries the names of the protocol's current
// version (v0.7: identity_endpoint, claim_endpoint), which its agents read,
// and those of v0.1 (register_uri, claim_uri, the anonymous method's
// credential types), which the agent-readiness scanners still check.
type AgentAuth struct {
	Skill                  string          `json:"skill" schema:"format=uri" jsonschema:"The auth.md document: how an agent registers here, in prose."`
	IdentityEndpoint       string          `json:"identity_endpoint" schema:"format=uri" jsonschema:"Where an agent registers an identity (v0.2 and later): POST {\"type\":\"anonymous\"} returns an identity assertion to exchange at the token endpoint."`
	ClaimEndpoint          string          `json:"claim_endpoint" schema:"format=uri" jsonschema:"Where a registration is claimed (v0.2 and later); claiming is never required here."`
	IdentityTypesSupported []string        `json:"identity_types_supported" schema:"enum=anonymous" jsonschema:"The identity types an agent may register as: anonymous only."`
	RegisterURI            string          `json:"register_uri" schema:"format=uri" jsonschema:"Where an agent registers and gets a credential at once (the name of v0.1): POST returns an access token."`
	ClaimURI               string          `json:"claim_uri" schema:"format=uri" jsonschema:"The claim endpoint, by its v0.1 name."`
	Anonymous              AgentAuthMethod `json:"anonymous" jsonschema:"The anonymous registration method (v0.1)."`
}

// AgentAuthMethod is one registration method of agent_auth: the
// credentials it gives.
type AgentAuthMethod struct {
	CredentialTypesSupported []string `json:"credential_types_supported" schema:"enum=access_token" jsonschema:"The credentials the method gives: an OAuth access token."`
}

type JWKSet struct {
	Keys []struct{} `json:"keys" schema:"maxItems=0"`
}

// ServerCard is the MCP server card: the current fields (SEP-2127) and the
// older ones scanners still read, in one object.
type ServerCard struct {
	Schema          string             `json:"$schema" schema:"format=uri"`
	Name            string             `json:"name" schema:"pattern=^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$;minLength=3;maxLength=200"`
	Version         string             `json:"version" schema:"maxLength=255"`
	Title           string             `json:"title" schema:"minLength=1;maxLength=100"`
	Description     string             `json:"description" schema:"minLength=1;maxLength=100"`
	WebsiteURL      string             `json:"websiteUrl" schema:"format=uri"`
	Remotes         []ServerCardRemote `json:"remotes" schema:"minItems=1"`
	ServerInfo      ServerCardInfo     `json:"serverInfo"`
	ProtocolVersion string             `json:"protocolVersion"`
	Transport       ServerCardEndpoint `json:"transport"`
	// Endpoint is the MCP endpoint's absolute URL, where scanners of the
	// older shape look for it.
	Endpoint       string             `json:"endpoint" schema:"format=uri"`
	Capabilities   ServerCapabilities `json:"capabilities"`
	Authentication ServerCardAuth     `json:"authentication"`
}

type ServerCardRemote struct {
	Type                      string   `json:"type" schema:"enum=streamable-http"`
	URL                       string   `json:"url" schema:"format=uri"`
	SupportedProtocolVersions []string `json:"supportedProtocolVersions"`
}

type ServerCardInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Version string `json:"version"`
}

type ServerCardEndpoint struct {
	Type     string `json:"type" schema:"enum=streamable-http"`
	Endpoint string `json:"endpoint"`
}

// ServerCapabilities are the capabilities initialize answers, in the same
// JSON (see mcpCapabilities).
type ServerCapabilities struct {
	Tools     *ListChanged     `json:"tools,omitempty"`
	Resources *ResourcesChange `json:"resources,omitempty"`
}

type ListChanged struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

type ResourcesChange struct {
	ListChanged bool `json:"listChanged,omitempty"`
	Subscribe   bool `json:"subscribe,omitempty"`
}

type ServerCardAuth struct {
	Required bool     `json:"required"`
	Schemes  []string `json:"schemes"`
}
