package oauth

import "slices"

// ResourceMetadata is an OAuth 2.0 Protected Resource Metadata document
// (RFC 9728 section 2): what the MCP server says about itself.
type ResourceMetadata struct {
	// Resource is the resource identifier: the value of the resource
	// parameter (RFC 8707) of authorization and token requests.
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// ScopesSupported is the scope asked for when the challenge names
	// none
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-selection-strategy).
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
}

// ServerMetadata is authorization server metadata (RFC 8414 section 2, and
// OpenID Connect Discovery 1.0 section 3, whose fields MCP uses are the
// same).
type ServerMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	// ClientIDMetadataDocumentSupported says the server takes an HTTPS URL
	// as client_id
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-id-metadata-documents).
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
	// AuthorizationResponseIssParameterSupported says authorization
	// responses carry iss (RFC 9207 section 3).
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// DPoPSigningAlgValuesSupported lists the algorithms the server takes
	// DPoP proofs signed with (RFC 9449 section 5.1): its presence says
	// the server issues DPoP-bound tokens.
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
}

// authMethods returns the token endpoint authentication methods the
// server takes; RFC 8414 section 2 makes client_secret_basic the default
// when the field is absent.
func (m *ServerMetadata) authMethods() []string {
	if len(m.TokenEndpointAuthMethodsSupported) == 0 {
		return []string{AuthSecretBasic}
	}
	return m.TokenEndpointAuthMethodsSupported
}

// offers reports whether the server lists scope in scopes_supported.
func (m *ServerMetadata) offers(scope string) bool { return slices.Contains(m.ScopesSupported, scope) }
