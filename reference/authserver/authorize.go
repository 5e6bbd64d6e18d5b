package authserver

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
	"github.com/fortune-tck/fortune-tck/reference/authserver/pages"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

const (
	approvalField = "user_oauth_approval"
	minNonceBytes = 8 // fosite refuses shorter nonces when it makes the ID token
)

// authorize is the authorization endpoint. A request (GET, or POST without a
// decision) is validated by fosite first, so a bad client or redirect URI
// is reported before anyone signs in; then an anonymous browser is sent to
// sign in, and a signed-in one gets a code at once (auto-approved or
// approved before) or the consent page. A POST with user_oauth_approval is
// the decision taken on that page.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil { // fosite would drop the bad pair and go on
		s.pages.Error(w, http.StatusBadRequest, "Invalid authorization request", "The request parameters could not be parsed.")
		return
	}
	if r.Method == http.MethodPost && r.PostFormValue(approvalField) != "" {
		s.consentDecision(w, r)
		return
	}
	ar, err := s.oauth.NewAuthorizeRequest(r.Context(), r)
	if err != nil {
		s.authorizeError(w, r, ar, err)
		return
	}
	v, u, ok := s.signedInUser(r)
	if !ok || hasPrompt(ar, "login") {
		s.toSignIn(w, r, ar)
		return
	}
	s.decide(w, r, ar, v, u)
}

// toSignIn remembers the request and sends the browser to the sign-in page
// (prompt=none forbids that: login_required).
func (s *Server) toSignIn(w http.ResponseWriter, r *http.Request, ar fosite.AuthorizeRequester) {
	if hasPrompt(ar, "none") {
		s.oauth.WriteAuthorizeError(r.Context(), w, ar, fosite.ErrLoginRequired)
		return
	}
	form := httpio.CloneValues(ar.GetRequestForm())
	form.Set("prompt", withoutPrompt(form.Get("prompt"), "login")) // satisfied by the sign-in ahead
	if form.Get("prompt") == "" {
		form.Del("prompt")
	}
	v := s.browsers.Ensure(w, r)
	s.browsers.SetReturnTo(v.ID, "/oauth/authorize?"+form.Encode())
	http.Redirect(w, r, "/login", http.StatusFound)
}

// decide issues a code without asking when the client is auto-approved for
// the scopes or the user approved them before (unless prompt=consent).
func (s *Server) decide(w http.ResponseWriter, r *http.Request, ar fosite.AuthorizeRequester, v pages.Session, u *store.User) {
	fc, scopes, err := s.grantable(ar, u)
	if err != nil {
		s.oauth.WriteAuthorizeError(r.Context(), w, ar, err)
		return
	}
	if !hasPrompt(ar, "consent") && (fc.AutoApproves(scopes) || s.store.Approved(u.ID, fc.ID, scopes)) {
		s.issueCode(w, r, ar, v, u, scopes)
		return
	}
	if hasPrompt(ar, "none") {
		s.oauth.WriteAuthorizeError(r.Context(), w, ar, fosite.ErrConsentRequired)
		return
	}
	s.showConsent(w, r, ar, v, u, fc, scopes)
}

// grantable returns the requested scopes the user may have: openid always,
// any other scope when the user is a member of the group of that name. The
// client's own limits were checked by fosite (invalid_scope). A request
// without scope asks for all the client's scopes, as in UAA.
func (s *Server) grantable(ar fosite.AuthorizeRequester, u *store.User) (*store.FositeClient, []string, error) {
	fc, ok := ar.GetClient().(*store.FositeClient)
	if !ok {
		return nil, nil, fosite.ErrInvalidClient
	}
	if err := checkEarly(ar); err != nil {
		return nil, nil, err
	}
	requested := ar.GetRequestedScopes()
	if len(requested) == 0 {
		requested = slices.Clone(fc.Scope)
		ar.SetRequestedScopes(requested)
	}
	var scopes []string
	for _, sc := range requested {
		if sc == "openid" || s.store.IsMember(u.ID, sc) {
			scopes = append(scopes, sc)
		}
	}
	if len(scopes) == 0 {
		return nil, nil, fosite.ErrInvalidScope.WithHintf("User %s may not be granted any of the requested scopes (%s).",
			u.UserName, strings.Join(requested, " "))
	}
	return fc, scopes, nil
}

// checkEarly refuses, before the consent page, what fosite would refuse
// only when issuing the code (PKCE) or the ID token (nonce): a user should
// not approve a request that then fails.
func checkEarly(ar fosite.AuthorizeRequester) error {
	form := ar.GetRequestForm()
	challenge, method := form.Get("code_challenge"), form.Get("code_challenge_method")
	switch nonce := form.Get("nonce"); {
	case nonce != "" && len(nonce) < minNonceBytes:
		return fosite.ErrInvalidRequest.WithHintf("The nonce must be at least %d characters long.", minNonceBytes)
	case challenge == "" && ar.GetClient().IsPublic():
		return fosite.ErrInvalidRequest.WithHint("This client must include a code_challenge (PKCE with S256).")
	case challenge != "" && method != "S256":
		return fosite.ErrInvalidRequest.WithHint("Clients must use code_challenge_method=S256; plain is not allowed.")
	}
	return nil
}

func (s *Server) showConsent(w http.ResponseWriter, _ *http.Request, ar fosite.AuthorizeRequester, v pages.Session, u *store.User, fc *store.FositeClient, scopes []string) {
	data := pages.ConsentData{
		Title:      "Application Authorization",
		ClientName: cmp.Or(fc.Name, fc.ID),
		UserName:   u.UserName,
		CSRF:       s.browsers.AddConsent(v.ID, ar.GetRequestForm()),
	}
	for i, sc := range scopes {
		data.Scopes = append(data.Scopes, pages.ConsentScope{Index: i, Name: sc, Label: s.scopeLabel(sc)})
	}
	s.pages.Consent(w, http.StatusOK, data)
}

// scopeLabel is what the consent page says about a scope: the description
// of the group of that name, else the name.
func (s *Server) scopeLabel(scope string) string {
	if g, ok := s.store.GroupByName(scope); ok && g.Description != "" {
		return g.Description
	}
	return scope
}

// consentDecision handles the consent form: the pending request is found by
// the form's CSRF token (good once), validated again, and answered with a
// code for the checked scopes or with access_denied.
func (s *Server) consentDecision(w http.ResponseWriter, r *http.Request) {
	v, u, ok := s.signedInUser(r)
	if !ok {
		s.pages.Error(w, http.StatusBadRequest, "Session ended", "Your session has ended. Go back to the application and start again.")
		return
	}
	query, ok := s.browsers.TakeConsent(v.ID, r.PostFormValue(csrfField))
	if !ok {
		s.pages.Error(w, http.StatusForbidden, "Form expired", "This authorization form is no longer valid. Go back to the application and start again.")
		return
	}
	ar, err := s.replayAuthorizeRequest(r, query)
	if err != nil {
		s.authorizeError(w, r, ar, err)
		return
	}
	fc, scopes, err := s.grantable(ar, u)
	if err != nil {
		s.oauth.WriteAuthorizeError(r.Context(), w, ar, err)
		return
	}
	approved := checkedScopes(r.PostForm, scopes)
	if r.PostFormValue(approvalField) != "true" || len(approved) == 0 {
		s.oauth.WriteAuthorizeError(r.Context(), w, ar, fosite.ErrAccessDenied.WithHint("The user denied the request."))
		return
	}
	if err := s.store.Approve(u.ID, fc.ID, approved); err != nil {
		s.oauth.WriteAuthorizeError(r.Context(), w, ar, fosite.ErrServerError.WithWrap(err).WithDebug(err.Error()))
		return
	}
	s.issueCode(w, r, ar, v, u, approved)
}

// replayAuthorizeRequest parses a pending request again, as if it had just
// arrived: the client may have changed while the page was open.
func (s *Server) replayAuthorizeRequest(r *http.Request, query url.Values) (fosite.AuthorizeRequester, error) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "/oauth/authorize?"+query.Encode(), nil)
	if err != nil {
		return fosite.NewAuthorizeRequest(), fosite.ErrInvalidRequest.WithWrap(err)
	}
	return s.oauth.NewAuthorizeRequest(r.Context(), req)
}

// checkedScopes returns the scopes whose boxes (scope.N = scope.<name>)
// were checked, in the order of scopes.
func checkedScopes(form url.Values, scopes []string) []string {
	checked := make(map[string]bool)
	for key, values := range form {
		if !strings.HasPrefix(key, "scope.") {
			continue
		}
		for _, v := range values {
			if name, ok := strings.CutPrefix(v, "scope."); ok {
				checked[name] = true
			}
		}
	}
	var out []string
	for _, sc := range scopes {
		if checked[sc] {
			out = append(out, sc)
		}
	}
	return out
}

// issueCode grants scopes and redirects with the code.
func (s *Server) issueCode(w http.ResponseWriter, r *http.Request, ar fosite.AuthorizeRequester, v pages.Session, u *store.User, scopes []string) {
	for _, sc := range scopes {
		ar.GrantScope(sc)
	}
	sess := store.NewUserSession(u, v.AuthTime, ar.GetRequestForm().Get("nonce"))
	resp, err := s.oauth.NewAuthorizeResponse(r.Context(), ar, sess)
	if err != nil {
		s.logUnexpected("authorize", err)
		s.oauth.WriteAuthorizeError(r.Context(), w, ar, err)
		return
	}
	s.oauth.WriteAuthorizeResponse(r.Context(), w, ar, resp)
}

// authorizeError redirects the error to the client when the redirect URI is
// one of the client's; otherwise it must not redirect anywhere, and shows an
// error page with UAA's wording.
func (s *Server) authorizeError(w http.ResponseWriter, r *http.Request, ar fosite.AuthorizeRequester, err error) {
	if ar != nil && ar.IsRedirectURIValid() {
		s.oauth.WriteAuthorizeError(r.Context(), w, ar, err)
		return
	}
	s.pages.Error(w, http.StatusBadRequest, "Invalid authorization request", authorizeProblem(ar, err))
}

func authorizeProblem(ar fosite.AuthorizeRequester, err error) string {
	if ar == nil {
		return fosite.ErrorToRFC6749Error(err).GetDescription()
	}
	form := ar.GetRequestForm()
	switch id := form.Get("client_id"); {
	case id == "":
		return "A client_id must be supplied."
	case ar.GetClient() == nil || ar.GetClient().GetID() != id: // fosite leaves an empty client
		return "No client with requested id: " + id
	}
	if raw := form.Get("redirect_uri"); raw != "" {
		if _, e := fosite.MatchRedirectURIWithClientRedirectURIs(raw, ar.GetClient()); e != nil {
			return "Invalid redirect " + raw + " did not match one of the registered values"
		}
	}
	return fosite.ErrorToRFC6749Error(err).GetDescription()
}

func hasPrompt(ar fosite.AuthorizeRequester, value string) bool {
	return slices.Contains(strings.Fields(ar.GetRequestForm().Get("prompt")), value)
}

func withoutPrompt(prompt, value string) string {
	return strings.Join(slices.DeleteFunc(strings.Fields(prompt), func(p string) bool { return p == value }), " ")
}
