package auth

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"
	jose "github.com/go-jose/go-jose/v3"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// ID tokens (OpenID Connect Core 3.1.3.7): signed by a key of the server's JWKS, issued by the discovered
// issuer, for the client, carrying the nonce of the request.

func (fl *flowSteps) registerIDTokenSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the ID token is signed with a key of the server's JWKS$`, fl.idTokenSigned)
	sc.Step(`^the ID token names the issuer, the client "([^"]+)", the user and the nonce of the request$`, fl.idTokenClaims)
	sc.Step(`^the field "sub" is the subject of the ID token$`, fl.subIsIDTokenSubject)
	sc.Step(`^the issuer is the token endpoint's address$`, fl.issuerIsTokenEndpoint)
}

// idTokenPayload decodes the claims of a JWT without verifying it: the caller verifies what it relies on.
func idTokenPayload(token string) (map[string]any, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("the ID token is not a JWS in compact form (%d parts)", len(parts))
	}
	data, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, fmt.Errorf("the ID token's payload is not base64url: %w", err)
	}
	var claims map[string]any
	if err := json.Unmarshal(data, &claims); err != nil {
		return nil, fmt.Errorf("the ID token's payload is not a JSON object: %w", err)
	}
	return claims, nil
}

// learnSubject keeps the subject of a received ID token: {user_id} when the scenario does not know the user's
// id otherwise (fixtures without an id), and {id_token_sub}.
func (fl *flowSteps) learnSubject(tokens map[string]any) {
	raw, _ := tokens["id_token"].(string)
	claims, err := idTokenPayload(raw)
	if err != nil {
		return
	}
	if sub, _ := claims["sub"].(string); sub != "" {
		fl.Vars["id_token_sub"] = sub
		if fl.Vars["user_id"] == "" {
			fl.Vars["user_id"] = sub
		}
	}
}

func (fl *flowSteps) idToken() (string, error) {
	raw, _ := fl.tokens["id_token"].(string)
	if raw == "" {
		return "", fl.Failf("the token response has no id_token")
	}
	return raw, nil
}

func (fl *flowSteps) idTokenSigned() error {
	raw, err := fl.idToken()
	if err != nil {
		return err
	}
	jwksURL, err := fl.srv.endpoint("jwks", func(e endpoints) string { return e.JWKS })
	if err != nil {
		return err
	}
	sig, err := jose.ParseSigned(raw)
	if err != nil {
		return fmt.Errorf("the ID token is not a JWS: %w", err)
	}
	if len(sig.Signatures) != 1 {
		return fmt.Errorf("the ID token has %d signatures, want 1", len(sig.Signatures))
	}
	if alg := sig.Signatures[0].Header.Algorithm; alg == "none" || strings.HasPrefix(alg, "HS") {
		return fmt.Errorf("the ID token is signed with %s; a key of the JWKS signs with an asymmetric algorithm", alg)
	}
	if err := fl.API(core.Request{Method: http.MethodGet, URL: jwksURL}); err != nil {
		return err
	}
	if fl.Last.Status != http.StatusOK {
		return fl.Failf("the JWKS answered %d, want 200", fl.Last.Status)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(fl.Last.Body, &set); err != nil {
		return fl.Failf("the JWKS is not a JSON Web Key Set: %v", err)
	}
	kid := sig.Signatures[0].Header.KeyID
	for _, k := range set.Keys {
		if (kid == "" || k.KeyID == kid) && k.Use != "enc" {
			if _, err := sig.Verify(k.Key); err == nil {
				return nil
			}
		}
	}
	return fl.Failf("no key of the JWKS (%d keys) verifies the ID token's signature (kid %q)", len(set.Keys), kid)
}

func (fl *flowSteps) idTokenClaims(client string) error {
	client, err := fl.Expand(client)
	if err != nil {
		return err
	}
	raw, err := fl.idToken()
	if err != nil {
		return err
	}
	claims, err := idTokenPayload(raw)
	if err != nil {
		return err
	}
	var problems []string
	if iss := claims["iss"]; iss != fl.srv.endpoints.Issuer {
		problems = append(problems, fmt.Sprintf("iss is %s, want the issuer %q", core.MustJSON(iss), fl.srv.endpoints.Issuer))
	}
	switch aud := claims["aud"].(type) {
	case string:
		if aud != client {
			problems = append(problems, fmt.Sprintf("aud is %q, want it to hold %q", aud, client))
		}
	case []any:
		if !slices.Contains(aud, any(client)) {
			problems = append(problems, fmt.Sprintf("aud is %s, want it to hold %q", core.MustJSON(aud), client))
		}
	default:
		problems = append(problems, fmt.Sprintf("aud is %s, want the client id", core.MustJSON(aud)))
	}
	if claims["nonce"] != fl.Vars["nonce"] {
		problems = append(problems, fmt.Sprintf("nonce is %s, want %q", core.MustJSON(claims["nonce"]), fl.Vars["nonce"]))
	}
	if sub, _ := claims["sub"].(string); sub == "" {
		problems = append(problems, "sub is missing")
	}
	exp, ok := claims["exp"].(float64)
	if !ok || int64(exp) <= time.Now().Unix()-5 {
		problems = append(problems, fmt.Sprintf("exp is %s, want a JSON number later than now", core.MustJSON(claims["exp"])))
	}
	if len(problems) > 0 {
		return fmt.Errorf("the ID token is wrong:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

func (fl *flowSteps) subIsIDTokenSubject() error {
	obj, err := fl.JSONObject()
	if err != nil {
		return err
	}
	want := fl.Vars["id_token_sub"]
	if want == "" {
		// What the answer is compared with never came: the scenario cannot judge user information.
		return core.Blockedf("{id_token_sub} is not there: no token response of this scenario carried an ID token with a subject")
	}
	if obj["sub"] != want {
		return fl.Failf("sub is %s, want the ID token's subject %q", core.MustJSON(obj["sub"]), want)
	}
	return nil
}

// issuerIsTokenEndpoint checks spec 9.2: the issuer, as discovered (and so as every token's iss), is the address
// of the token endpoint.
func (fl *flowSteps) issuerIsTokenEndpoint() error {
	ep := fl.srv.endpoints
	if ep.Issuer != ep.Token {
		return fmt.Errorf("the issuer is %q, the token endpoint %q: spec 9.2 wants them equal", ep.Issuer, ep.Token)
	}
	return nil
}
