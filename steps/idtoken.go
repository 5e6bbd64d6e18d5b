package steps

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
)

// ID tokens (OpenID Connect Core 3.1.3.7): signed by a key of the server's JWKS, issued by the discovered
// issuer, for the client, carrying the nonce of the request.

func (w *flowSteps) registerIDTokenSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the ID token is signed with a key of the server's JWKS$`, w.idTokenSigned)
	sc.Step(`^the ID token names the issuer, the client "([^"]+)", the user and the nonce of the request$`, w.idTokenClaims)
	sc.Step(`^the field "sub" is the subject of the ID token$`, w.subIsIDTokenSubject)
	sc.Step(`^the issuer is the token endpoint's address$`, w.issuerIsTokenEndpoint)
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
func (w *flowSteps) learnSubject(tokens map[string]any) {
	raw, _ := tokens["id_token"].(string)
	claims, err := idTokenPayload(raw)
	if err != nil {
		return
	}
	if sub, _ := claims["sub"].(string); sub != "" {
		w.vars["id_token_sub"] = sub
		if w.vars["user_id"] == "" {
			w.vars["user_id"] = sub
		}
	}
}

func (w *flowSteps) idToken() (string, error) {
	raw, _ := w.tokens["id_token"].(string)
	if raw == "" {
		return "", w.failf("the token response has no id_token")
	}
	return raw, nil
}

func (w *flowSteps) idTokenSigned() error {
	raw, err := w.idToken()
	if err != nil {
		return err
	}
	jwksURL, err := w.endpoint("jwks", func(e Endpoints) string { return e.JWKS })
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
	if err := w.api(request{method: http.MethodGet, url: jwksURL}); err != nil {
		return err
	}
	if w.last.status != http.StatusOK {
		return w.failf("the JWKS answered %d, want 200", w.last.status)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(w.last.body, &set); err != nil {
		return w.failf("the JWKS is not a JSON Web Key Set: %v", err)
	}
	kid := sig.Signatures[0].Header.KeyID
	for _, k := range set.Keys {
		if (kid == "" || k.KeyID == kid) && k.Use != "enc" {
			if _, err := sig.Verify(k.Key); err == nil {
				return nil
			}
		}
	}
	return w.failf("no key of the JWKS (%d keys) verifies the ID token's signature (kid %q)", len(set.Keys), kid)
}

func (w *flowSteps) idTokenClaims(client string) error {
	client, err := w.expand(client)
	if err != nil {
		return err
	}
	raw, err := w.idToken()
	if err != nil {
		return err
	}
	claims, err := idTokenPayload(raw)
	if err != nil {
		return err
	}
	var problems []string
	if iss := claims["iss"]; iss != w.suite.endpoints.Issuer {
		problems = append(problems, fmt.Sprintf("iss is %s, want the issuer %q", mustJSON(iss), w.suite.endpoints.Issuer))
	}
	switch aud := claims["aud"].(type) {
	case string:
		if aud != client {
			problems = append(problems, fmt.Sprintf("aud is %q, want it to hold %q", aud, client))
		}
	case []any:
		if !slices.Contains(aud, any(client)) {
			problems = append(problems, fmt.Sprintf("aud is %s, want it to hold %q", mustJSON(aud), client))
		}
	default:
		problems = append(problems, fmt.Sprintf("aud is %s, want the client id", mustJSON(aud)))
	}
	if claims["nonce"] != w.vars["nonce"] {
		problems = append(problems, fmt.Sprintf("nonce is %s, want %q", mustJSON(claims["nonce"]), w.vars["nonce"]))
	}
	if sub, _ := claims["sub"].(string); sub == "" {
		problems = append(problems, "sub is missing")
	}
	exp, ok := claims["exp"].(float64)
	if !ok || int64(exp) <= time.Now().Unix()-5 {
		problems = append(problems, fmt.Sprintf("exp is %s, want a JSON number later than now", mustJSON(claims["exp"])))
	}
	if len(problems) > 0 {
		return fmt.Errorf("the ID token is wrong:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

func (w *flowSteps) subIsIDTokenSubject() error {
	obj, err := w.jsonObject()
	if err != nil {
		return err
	}
	want := w.vars["id_token_sub"]
	if want == "" {
		return fmt.Errorf("no ID token was received in this scenario")
	}
	if obj["sub"] != want {
		return w.failf("sub is %s, want the ID token's subject %q", mustJSON(obj["sub"]), want)
	}
	return nil
}

// issuerIsTokenEndpoint checks spec 9.2: the issuer, as discovered (and so as every token's iss), is the address
// of the token endpoint.
func (w *flowSteps) issuerIsTokenEndpoint() error {
	ep := w.suite.endpoints
	if ep.Issuer != ep.Token {
		return fmt.Errorf("the issuer is %q, the token endpoint %q: spec 9.2 wants them equal", ep.Issuer, ep.Token)
	}
	return nil
}
