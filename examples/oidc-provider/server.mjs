// An example deployment of oidc-provider (an OpenID Certified OAuth 2.0 / OpenID Connect server) that the
// fortune-tck suite can be pointed at. It is configured the way oidc-provider's own documentation and its
// example/ folder configure it: default endpoint paths, static clients, findAccount over a static account list,
// and small login and consent pages written by the host application (this file).
//
// It implements no UAA API: no /check_token, no /Users, no /oauth/clients, no /login, no /userinfo alias.
// Everything the suite sees is oidc-provider's own standard endpoints plus the interaction pages below.
//
// Environment:
//   PORT                    listening port (default 9090)
//   HOST                    listening address (default 127.0.0.1)
//   ISSUER                  issuer identifier (default http://127.0.0.1:$PORT)
//   GREETING_REDIRECT_URI   redirect URI of the reference greeting client (default http://127.0.0.1:8100/)
//   OIDC_PROVIDER_HOME      folder whose node_modules holds oidc-provider (set by start.sh); when unset,
//                           'oidc-provider' is imported the ordinary way, relative to this file
//
// Once the server is bound it prints one line: "oidc-provider listening on http://HOST:PORT".

import * as crypto from 'node:crypto';
import * as http from 'node:http';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

async function loadOidcProvider() {
  const home = process.env.OIDC_PROVIDER_HOME;
  if (!home) return import('oidc-provider');
  // ESM ignores NODE_PATH: resolve the package from the given folder and import it by its absolute URL.
  const entry = createRequire(path.join(path.resolve(home), 'package.json')).resolve('oidc-provider');
  return import(pathToFileURL(entry).href);
}

const { default: Provider, errors } = await loadOidcProvider();

const PORT = Number(process.env.PORT || 9090);
const HOST = process.env.HOST || '127.0.0.1';
const ISSUER = process.env.ISSUER || `http://127.0.0.1:${PORT}`;
const GREETING_REDIRECT_URI = process.env.GREETING_REDIRECT_URI || 'http://127.0.0.1:8100/';

// ---------------------------------------------------------------------------------------------------------
// Accounts. oidc-provider has no user store: findAccount is the host application's account model.
// `groups` is the host application's own attribute (oidc-provider has no notion of groups); the consent
// handler below uses it to decide whether the fortunes.read scope may be granted.
const accounts = [
  {
    accountId: '6f1c1f2e-8f3b-4c59-9d7e-3a2b8c4d5e01',
    login: 'alice',
    password: 'alice-password',
    groups: ['fortunes.read'],
    claims: {
      email: 'alice@example.org',
      email_verified: true,
      name: 'Alice Example',
      given_name: 'Alice',
      family_name: 'Example',
      preferred_username: 'alice',
    },
  },
  {
    accountId: '0b7d2c9a-5e4f-4a3b-8c1d-9e8f7a6b5c02',
    login: 'bob',
    password: 'bob-password',
    groups: [],
    claims: {
      email: 'bob@example.org',
      email_verified: true,
      name: 'Bob Example',
      given_name: 'Bob',
      family_name: 'Example',
      preferred_username: 'bob',
    },
  },
];

const accountsById = new Map(accounts.map((a) => [a.accountId, a]));
const accountsByLogin = new Map(accounts.map((a) => [a.login, a]));

function passwordMatches(account, password) {
  const a = crypto.createHash('sha256').update(String(account.password)).digest();
  const b = crypto.createHash('sha256').update(String(password ?? '')).digest();
  return crypto.timingSafeEqual(a, b);
}

async function findAccount(ctx, sub) {
  const account = accountsById.get(sub);
  if (!account) return undefined;
  return {
    accountId: account.accountId,
    // oidc-provider filters these by the granted scopes and the `claims` configuration below.
    async claims() {
      return { sub: account.accountId, ...account.claims };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Clients. Access tokens of tck-short live 2 seconds; all others use oidc-provider's default (1 hour).
const accessTokenTTL = { 'tck-short': 2 };

const clients = [
  {
    client_id: 'tck-web',
    client_secret: 'tck-web-secret',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: ['https://tck-web.client.invalid/callback'],
    // oidc-provider accepts client_secret_basic and client_secret_post interchangeably for a client
    // registered with either of the two (lib/shared/client_auth.js).
    token_endpoint_auth_method: 'client_secret_post',
  },
  {
    client_id: 'tck-short',
    client_secret: 'tck-short-secret',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: ['https://tck-short.client.invalid/callback'],
    token_endpoint_auth_method: 'client_secret_post',
  },
  {
    // A resource server: it only calls introspection (and revocation); see the documentation's
    // "Resource Server only clients".
    client_id: 'tck-resource',
    client_secret: 'tck-resource-secret',
    grant_types: [],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  },
  {
    client_id: 'greeting',
    client_secret: 'greeting-secret',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: [GREETING_REDIRECT_URI],
    token_endpoint_auth_method: 'client_secret_post',
  },
  {
    client_id: 'fortune',
    client_secret: 'fortune-secret',
    grant_types: [],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  },
];

// ---------------------------------------------------------------------------------------------------------
// Keys: a fresh RSA signing key and fresh cookie keys at every start (the adapter is in memory, so nothing
// outlives the process anyway).
function signingKey() {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: crypto.randomUUID(), use: 'sig', alg: 'RS256' };
}

const configuration = {
  clients,
  findAccount,
  scopes: ['openid', 'email', 'profile', 'offline_access', 'fortunes.read'],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'given_name', 'family_name', 'preferred_username'],
  },
  clientDefaults: {
    grant_types: ['authorization_code'],
    id_token_signed_response_alg: 'RS256',
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
  },
  features: {
    devInteractions: { enabled: false }, // the interaction pages are served below
    introspection: { enabled: true },
    revocation: { enabled: true },
  },
  // issueRefreshToken is oidc-provider's default: a refresh token only when the client may use the grant
  // and offline_access was granted (OpenID Connect Core 11), which the suite asks for where a scenario needs one.
  interactions: {
    url(ctx, interaction) {
      return `/interaction/${interaction.uid}`;
    },
  },
  ttl: {
    AccessToken(ctx, token, client) {
      return accessTokenTTL[client?.clientId] ?? token.resourceServer?.accessTokenTTL ?? 60 * 60;
    },
  },
  cookies: {
    keys: [crypto.randomBytes(32).toString('base64url')],
  },
  jwks: { keys: [signingKey()] },
};

const provider = new Provider(ISSUER, configuration);

// ---------------------------------------------------------------------------------------------------------
// Interaction pages (login and consent), modelled on oidc-provider's example/routes/koa.js, without extra
// packages: a Koa middleware in front of oidc-provider's own routes.

function esc(value) {
  return String(value).replace(/[&<>"']/g, (c) => ({
    '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  })[c]);
}

function page(title, body) {
  return `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>${esc(title)}</title>
</head>
<body>
<h1>${esc(title)}</h1>
${body}
</body>
</html>
`;
}

function cancelForm(uid) {
  return `<form method="post" action="/interaction/${esc(uid)}/abort">
<button type="submit" name="cancel" value="cancel">Cancel</button>
</form>`;
}

function loginPage(uid, client, params, error) {
  const login = params.login_hint ? ` value="${esc(params.login_hint)}"` : '';
  return page('Sign-in', `<p>Sign in to continue to ${esc(client.clientId)}.</p>
${error ? `<p class="error">${esc(error)}</p>\n` : ''}<form method="post" action="/interaction/${esc(uid)}/login">
<label>Username <input type="text" name="login" autocomplete="username" required${login}></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign-in</button>
</form>
${cancelForm(uid)}`);
}

function consentPage(uid, client, params, account) {
  const requested = String(params.scope || '').split(' ').filter(Boolean);
  const items = requested.map((s) => `<li>${esc(s)}</li>`).join('\n');
  const refused = requested.filter((s) => !mayGrant(account, s));
  return page('Authorize', `<p>${esc(client.clientId)} is asking for access to your account with the scopes: ${esc(requested.join(' '))}</p>
<ul>
${items}
</ul>
${refused.length ? `<p>Not available to your account: ${esc(refused.join(' '))}</p>\n` : ''}<form method="post" action="/interaction/${esc(uid)}/confirm">
<button type="submit" name="consent" value="approve">Continue</button>
</form>
${cancelForm(uid)}`);
}

async function readForm(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 64 * 1024) throw new Error('request body too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function html(ctx, status, body) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

async function finish(ctx, result, mergeWithLastSubmission) {
  const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission });
  ctx.status = 303;
  ctx.redirect(to);
}

// The consent decision. Granting scopes to an account is the host application's policy: oidc-provider has no
// groups, so this host grants fortunes.read only to accounts in the group fortunes.read. Other accounts get a
// grant that records fortunes.read as rejected (so they are not asked again in this session) and a token
// whose scope lacks it.
function mayGrant(account, scope) {
  if (scope === 'fortunes.read') return Boolean(account?.groups.includes('fortunes.read'));
  return true;
}

async function confirm(ctx, details) {
  const { prompt, params, session } = details;
  const account = accountsById.get(session.accountId);
  let grant;
  if (details.grantId) {
    grant = await provider.Grant.find(details.grantId); // modify the grant of this session
  } else {
    grant = new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  }
  const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
  if (missingOIDCScope) {
    const allowed = missingOIDCScope.filter((s) => mayGrant(account, s));
    const refused = missingOIDCScope.filter((s) => !mayGrant(account, s));
    if (allowed.length) grant.addOIDCScope(allowed.join(' '));
    if (refused.length) grant.rejectOIDCScope(refused.join(' '));
  }
  if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
  if (missingResourceScopes) {
    for (const [indicator, scopes] of Object.entries(missingResourceScopes)) {
      const allowed = scopes.filter((s) => mayGrant(account, s));
      const refused = scopes.filter((s) => !mayGrant(account, s));
      if (allowed.length) grant.addResourceScope(indicator, allowed.join(' '));
      if (refused.length) grant.rejectResourceScope(indicator, refused.join(' '));
    }
  }
  const grantId = await grant.save();
  const consent = details.grantId ? {} : { grantId };
  return finish(ctx, { consent }, true);
}

provider.use(async (ctx, next) => {
  const m = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|confirm|abort))?$/.exec(ctx.path);
  if (!m) return next();
  const action = m[2] || 'show';
  ctx.set('cache-control', 'no-store');
  try {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.uid !== m[1]) {
      return html(ctx, 400, page('Error', '<p>interaction mismatch</p>'));
    }
    const client = await provider.Client.find(details.params.client_id);
    const prompt = details.prompt.name;

    if (action === 'show' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      if (prompt === 'login') return html(ctx, 200, loginPage(details.uid, client, details.params));
      if (prompt === 'consent') {
        const account = accountsById.get(details.session?.accountId);
        return html(ctx, 200, consentPage(details.uid, client, details.params, account));
      }
      return html(ctx, 400, page('Error', `<p>unsupported prompt ${esc(prompt)}</p>`));
    }

    if (action === 'abort' && (ctx.method === 'POST' || ctx.method === 'GET')) {
      if (ctx.method === 'POST') await readForm(ctx.req);
      return finish(ctx, {
        error: 'access_denied',
        error_description: 'End-User aborted interaction',
      }, false);
    }

    if (ctx.method !== 'POST') {
      ctx.set('allow', 'POST');
      return html(ctx, 405, page('Error', '<p>method not allowed</p>'));
    }
    const form = await readForm(ctx.req);

    if (action === 'login') {
      if (prompt !== 'login') return html(ctx, 400, page('Error', '<p>no login is pending</p>'));
      const account = accountsByLogin.get(form.get('login') || '');
      if (!account || !passwordMatches(account, form.get('password'))) {
        return html(ctx, 401, loginPage(details.uid, client, details.params, 'Invalid username or password.'));
      }
      return finish(ctx, { login: { accountId: account.accountId } }, false);
    }

    // action === 'confirm'
    if (prompt !== 'consent') return html(ctx, 400, page('Error', '<p>no consent is pending</p>'));
    return confirm(ctx, details);
  } catch (err) {
    if (err instanceof errors.SessionNotFound) {
      return html(ctx, err.status || 400, page('Error', `<p>${esc(err.message)}: ${esc(err.error_description || '')}</p>`));
    }
    throw err;
  }
});

const server = http.createServer(provider.callback());
server.on('error', (err) => {
  console.error(`oidc-provider: ${err.message}`);
  process.exit(1);
});
server.listen(PORT, HOST, () => {
  const { address, port } = server.address();
  const host = address.includes(':') ? `[${address}]` : address;
  console.log(`oidc-provider listening on http://${host}:${port}`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(0));
}
