package authserver

import (
	"net/http"
	"slices"

	"github.com/fortune-tck/fortune-tck/reference/authserver/accounts"
	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
	"github.com/fortune-tck/fortune-tck/reference/authserver/keys"
)

// discoveryDocument is the OpenID Provider metadata (OpenID Connect
// Discovery 1.0 and RFC 8414).
type discoveryDocument struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	UserinfoEndpoint                  string   `json:"userinfo_endpoint"`
	JWKSURI                           string   `json:"jwks_uri"`
	IntrospectionEndpoint             string   `json:"introspection_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	EndSessionEndpoint                string   `json:"end_session_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	SubjectTypesSupported             []string `json:"subject_types_supported"`
	IDTokenSigningAlgValuesSupported  []string `json:"id_token_signing_alg_values_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ClaimsSupported                   []string `json:"claims_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ClaimsParameterSupported          bool     `json:"claims_parameter_supported"`
	RequestParameterSupported         bool     `json:"request_parameter_supported"`
}

// claimsSupported are the claims of access tokens, ID tokens and userinfo.
var claimsSupported = []string{
	"sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "azp", "jti",
	"user_id", "user_name", "preferred_username", "given_name", "family_name", "name", "email", "email_verified",
	"client_id", "cid", "scope", "grant_type", "origin", "zid", "rev_sig",
}

// discovery serves the metadata; it is also served under /oauth/token,
// because the issuer is the token endpoint address and clients look for
// {issuer}/.well-known/openid-configuration.
func (s *Server) discovery(w http.ResponseWriter, _ *http.Request) {
	httpio.WriteJSON(w, http.StatusOK, discoveryDocument{
		Issuer:                            s.issuer,
		AuthorizationEndpoint:             s.baseURL + "/oauth/authorize",
		TokenEndpoint:                     s.baseURL + "/oauth/token",
		UserinfoEndpoint:                  s.baseURL + "/userinfo",
		JWKSURI:                           s.baseURL + "/token_keys",
		IntrospectionEndpoint:             s.baseURL + "/introspect",
		RevocationEndpoint:                s.baseURL + "/oauth/revoke",
		EndSessionEndpoint:                s.baseURL + "/logout.do",
		ScopesSupported:                   s.scopesSupported(),
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query", "fragment", "form_post"},
		GrantTypesSupported:               accounts.Grants,
		SubjectTypesSupported:             []string{"public"},
		IDTokenSigningAlgValuesSupported:  []string{"RS256"},
		TokenEndpointAuthMethodsSupported: []string{"client_secret_basic", "client_secret_post"},
		ClaimsSupported:                   claimsSupported,
		CodeChallengeMethodsSupported:     []string{"S256"},
	})
}

// scopesSupported are openid and the names of the groups: the scopes a user
// can be granted.
func (s *Server) scopesSupported() []string {
	scopes := []string{"openid"}
	for _, g := range s.store.ListGroups() {
		if !slices.Contains(scopes, g.DisplayName) {
			scopes = append(scopes, g.DisplayName)
		}
	}
	return scopes
}

// tokenKeys serves the JWKS.
func (s *Server) tokenKeys(w http.ResponseWriter, _ *http.Request) {
	all := s.keys.All()
	jwks := make([]keys.PublicJWK, len(all))
	for i, k := range all {
		jwks[i] = k.Public()
	}
	httpio.WriteJSON(w, http.StatusOK, map[string][]keys.PublicJWK{"keys": jwks})
}

// tokenKey serves the key that signs now, as UAA's /token_key does.
func (s *Server) tokenKey(w http.ResponseWriter, _ *http.Request) {
	httpio.WriteJSON(w, http.StatusOK, s.keys.Current().Public())
}
