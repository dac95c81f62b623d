// oauth-client.mjs connects the official TypeScript client
// (@modelcontextprotocol/client, v2) to `warden serve` without a token,
// the way Claude Code or VS Code do: the client's own OAuth provider
// discovers Warden's authorization server (RFC 9728, RFC 8414), registers
// (RFC 7591) and sends the browser to the consent page with PKCE S256.
// Headless Chromium (puppeteer-core driving /usr/bin/chromium) opens the
// page, checks that it names the client, and clicks Allow; the client
// then exchanges the code, lists and calls a tool, refreshes its tokens
// (rotation, and reuse of the old refresh token revokes the grant) and
// finally revokes a fresh grant (RFC 7009) and sees the server refuse its
// access token with a 401 that says so. Exits non-zero, naming each
// failed check.
//
// Usage (from the directory whose node_modules holds the client and
// puppeteer-core): node oauth-client.mjs http://127.0.0.1:PORT/mcp
// Environment: WARDEN_INTEROP_TOOL (default keysweep_scan_text),
// CHROMIUM (default /usr/bin/chromium).
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client, StreamableHTTPClientTransport, UnauthorizedError,
  discoverAuthorizationServerMetadata, refreshAuthorization,
} from '@modelcontextprotocol/client';
import puppeteer from 'puppeteer-core';

const [target] = process.argv.slice(2);
if (!target) {
  console.error('usage: node oauth-client.mjs http://127.0.0.1:PORT/mcp');
  process.exit(2);
}
const label = 'oauth-client';
const tool = process.env.WARDEN_INTEROP_TOOL || 'keysweep_scan_text';
const clientName = 'Warden interop <OAuth> client';
let failures = 0;
function check(ok, what, detail) {
  if (ok) {
    console.log(`${label}: ok   ${what}`);
  } else {
    failures++;
    console.log(`${label}: FAIL ${what}${detail === undefined ? '' : ': ' + JSON.stringify(detail).slice(0, 500)}`);
  }
}
const timer = setTimeout(() => { console.log(`${label}: FAIL timed out after 120 s`); process.exit(1); }, 120_000);

// The redirect target: a loopback listener on a port of its own, as a
// native client runs (RFC 8252).
let gotCallback;
const callback = new Promise((resolve) => { gotCallback = resolve; });
const cb = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://127.0.0.1');
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end('You can close this window.');
  if (u.pathname === '/callback') gotCallback(u.searchParams);
});
await new Promise((r) => cb.listen(0, '127.0.0.1', r));
const redirectUrl = `http://127.0.0.1:${cb.address().port}/callback`;

// An in-memory OAuthClientProvider, the shape every SDK user writes.
class MemoryProvider {
  constructor() { this.saved = {}; this.authUrl = undefined; }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: clientName, redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() { return this.saved.client; }
  saveClientInformation(c) { this.saved.client = c; }
  tokens() { return this.saved.tokens; }
  saveTokens(t) { this.saved.tokens = t; }
  redirectToAuthorization(url) { this.authUrl = url; }
  saveCodeVerifier(v) { this.saved.verifier = v; }
  codeVerifier() { return this.saved.verifier; }
  saveDiscoveryState(s) { this.saved.discovery = s; }
  discoveryState() { return this.saved.discovery; }
  invalidateCredentials(scope) {
    if (scope === 'all' || scope === 'tokens') delete this.saved.tokens;
    if (scope === 'all' || scope === 'client') delete this.saved.client;
  }
}

const options = { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } };
const provider = new MemoryProvider();
const origin = new URL(target).origin;

async function connect(p) {
  const client = new Client({ name: 'warden-oauth-interop', version: '1.0.0' }, options);
  const transport = new StreamableHTTPClientTransport(new URL(target), { authProvider: p });
  await client.connect(transport);
  return { client, transport };
}

async function callTool(client) {
  const text = 'oauth interop: nothing secret';
  const res = await client.callTool({ name: tool, arguments: { text } });
  return res.isError !== true && res.structuredContent?.status === 'completed' && res.structuredContent?.text_length === text.length;
}

// A raw POST with a given access token, for the checks the SDK would
// paper over by re-authorizing.
async function rawList(token) {
  const r = await fetch(target, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}`,
      'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
  });
  await r.text();
  return { status: r.status, challenge: r.headers.get('www-authenticate') || '' };
}

const profile = mkdtempSync(join(tmpdir(), 'warden-chromium-'));
let browser;
try {
  // 1. Connecting without a token starts the authorization.
  let unauthorized;
  const first = new StreamableHTTPClientTransport(new URL(target), { authProvider: provider });
  try {
    await new Client({ name: 'warden-oauth-interop', version: '1.0.0' }, options).connect(first);
  } catch (e) {
    unauthorized = e;
  }
  check(unauthorized instanceof UnauthorizedError, 'connecting without a token asks for authorization', unauthorized && String(unauthorized));
  check(provider.saved.client?.client_id !== undefined, 'the client registered dynamically (RFC 7591)', provider.saved.client);
  const authUrl = provider.authUrl;
  check(authUrl?.origin === origin && authUrl?.searchParams.get('code_challenge_method') === 'S256', 'the authorization URL is Warden\'s, with PKCE S256', authUrl?.href);

  // 2. The person clicks Allow on the consent page, in headless Chromium.
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`],
  });
  const page = await browser.newPage();
  await page.goto(authUrl.href, { waitUntil: 'domcontentloaded' });
  const shown = await page.$eval('#client-name', (el) => el.textContent);
  check(shown === clientName, 'the consent page names the registered client_name', shown);
  const tools = await page.$$eval('#tools li code', (els) => els.map((e) => e.textContent));
  check(tools.includes(tool), `the consent page lists ${tool}`, tools);
  await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#allow')]);
  const params = await callback;
  check(params.get('code') && params.get('iss') === origin, 'the browser came back with a code and iss (RFC 9207)', Object.fromEntries(params));

  // 3. The client exchanges the code and connects.
  await first.finishAuth(params);
  const tokens = provider.saved.tokens;
  check(tokens?.access_token && tokens?.refresh_token && tokens?.expires_in > 3500 && tokens?.expires_in <= 3600, 'the code gave an access token (about 1 h) and a refresh token', tokens && { expires_in: tokens.expires_in });
  const { client } = await connect(provider);
  const list = await client.listTools();
  check(list.tools.some((t) => t.name === tool), `tools/list has ${tool}`);
  check(await callTool(client), `${tool} answers`);
  await client.close();

  // 4. Refresh rotates the tokens; the old refresh token, used again,
  // revokes the grant.
  const metadata = await discoverAuthorizationServerMetadata(origin);
  check(metadata?.registration_endpoint && metadata?.revocation_endpoint, 'RFC 8414 metadata names the registration and revocation endpoints');
  const old = provider.saved.tokens;
  const fresh = await refreshAuthorization(origin, { metadata, clientInformation: provider.saved.client, refreshToken: old.refresh_token, resource: new URL(target) });
  check(fresh.refresh_token && fresh.refresh_token !== old.refresh_token && fresh.access_token !== old.access_token, 'refresh rotates both tokens');
  provider.saveTokens(fresh);
  const again = await connect(provider);
  check(await callTool(again.client), `${tool} answers with the refreshed token`);
  await again.client.close();
  check((await rawList(old.access_token)).status === 401, 'the access token before the refresh is refused');
  let reuse;
  try {
    await refreshAuthorization(origin, { metadata, clientInformation: provider.saved.client, refreshToken: old.refresh_token, resource: new URL(target) });
  } catch (e) {
    reuse = e;
  }
  check(reuse !== undefined, 'the rotated refresh token is refused', reuse && String(reuse));
  const afterReuse = await rawList(fresh.access_token);
  check(afterReuse.status === 401 && afterReuse.challenge.includes('revoked'), 'reuse revoked the grant: the current access token is refused, and the 401 says so', afterReuse);

  // 5. A new authorization (the SDK re-authorizes by itself), then RFC
  // 7009 revocation ends it.
  provider.invalidateCredentials('tokens');
  provider.authUrl = undefined;
  let second = new Promise((resolve) => { gotCallback = resolve; });
  const t2 = new StreamableHTTPClientTransport(new URL(target), { authProvider: provider });
  try {
    await new Client({ name: 'warden-oauth-interop', version: '1.0.0' }, options).connect(t2);
  } catch (e) {
    check(e instanceof UnauthorizedError, 'a second authorization starts', String(e));
  }
  await page.goto(provider.authUrl.href, { waitUntil: 'domcontentloaded' });
  await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#allow')]);
  await t2.finishAuth(await second);
  const grant = provider.saved.tokens;
  check((await rawList(grant.access_token)).status === 200, 'the new grant works');
  const rv = await fetch(metadata.revocation_endpoint, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: grant.refresh_token, token_type_hint: 'refresh_token', client_id: provider.saved.client.client_id }),
  });
  check(rv.status === 200, 'revocation answers 200', rv.status);
  const revoked = await rawList(grant.access_token);
  check(revoked.status === 401 && revoked.challenge.includes('revoked'), 'after revocation the access token is refused, and the 401 says so', revoked);
} catch (e) {
  failures++;
  console.log(`${label}: FAIL ${e?.stack || e}`);
} finally {
  clearTimeout(timer);
  if (browser) await browser.close().catch(() => {});
  cb.close();
  rmSync(profile, { recursive: true, force: true });
}
if (failures > 0) {
  console.log(`${label}: ${failures} check(s) failed`);
  process.exit(1);
}
console.log(`${label}: all checks passed`);
process.exit(0);
