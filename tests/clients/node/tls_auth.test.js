'use strict';
/*
 * The official OpenSearch JavaScript client against `trove serve` over HTTPS
 * with HTTP Basic authentication, configured as an application configures it
 * for a secured OpenSearch cluster: `ssl: { ca }` and `auth: { username,
 * password }`.
 *
 * How: a self-signed certificate for 127.0.0.1 is made with the openssl
 * command and a users file with `trove passwd` (an admin and a read-only
 * user) in a temporary directory; the server is `trove serve --port 0
 * --tls-cert --tls-key --users`, its URL read from the "listening on" line.
 * The admin creates an index, indexes a document and searches it; the reader
 * searches and gets the security plugin's 403 when it tries to index; a
 * client without credentials gets 401. The server must exit 0 on SIGTERM.
 *
 * Rejected: disabling certificate verification (rejectUnauthorized: false)
 * would not show that the client trusts the server it was told to trust.
 */
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client, errors } = require('@opensearch-project/opensearch');
const { startTrove, stopTrove, TROVE_BIN } = require('./trove_server');

const USERS = {
  boss: { password: 'Node-admin-pw-5e1f', role: 'admin' },
  viewer: { password: 'Node-reader-pw-9a3c', role: 'read' },
};
const INDEX = 'secured';


async function expectStatus(fn, statusCode) {
  let err = null;
  try {
    await fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof errors.ResponseError, `expected a ${statusCode}, got ${err}`);
  assert.equal(err.meta.statusCode, statusCode, JSON.stringify(err.meta.body));
  return err;
}

describe('official OpenSearch client over HTTPS with basic auth', () => {
  let dir;
  let server;
  const clients = [];
  const connect = (user) => {
    const c = new Client({
      node: server.url,
      ssl: { ca: fs.readFileSync(path.join(dir, 'cert.pem')) },
      ...(user ? { auth: { username: user, password: USERS[user].password } } : {}),
      maxRetries: 0,
      requestTimeout: 10000,
    });
    clients.push(c);
    return c;
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-node-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore', timeout: 60000 });
    for (const [name, u] of Object.entries(USERS)) {
      execFileSync(TROVE_BIN, ['passwd', name, '--role', u.role, '--users', path.join(dir, 'users')], {
        input: `${u.password}\n`, stdio: ['pipe', 'ignore', 'ignore'], timeout: 60000,
      });
    }
    server = await startTrove(['--tls-cert', path.join(dir, 'cert.pem'), '--tls-key', path.join(dir, 'key.pem'),
      '--users', path.join(dir, 'users')]);
  });

  after(async () => {
    for (const c of clients) await c.close();
    if (server) {
      const { code, signal } = await stopTrove(server);
      assert.equal(code, 0, `trove serve exited with ${code ?? signal}: ${server.log()}`);
      for (const u of Object.values(USERS)) assert.ok(!server.log().includes(u.password), 'a password was logged');
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the admin creates an index, indexes and searches', async () => {
    const admin = connect('boss');
    const { body: created } = await admin.indices.create({
      index: INDEX,
      body: { mappings: { properties: { title: { type: 'text' }, n: { type: 'integer' } } } },
    });
    assert.deepEqual(created, { acknowledged: true, shards_acknowledged: true, index: INDEX });
    const { statusCode, body: indexed } = await admin.index({
      index: INDEX, id: '1', body: { title: 'hello over tls', n: 1 }, refresh: true,
    });
    assert.equal(statusCode, 201);
    assert.equal(indexed.result, 'created');
    const { body } = await admin.search({ index: INDEX, body: { query: { match: { title: 'tls' } } } });
    assert.equal(body.hits.total.value, 1);
    assert.equal(body.hits.hits[0]._id, '1');
  });

  it('a reader searches, and indexing is a 403 security_exception', async () => {
    const reader = connect('viewer');
    const { body } = await reader.search({ index: INDEX, body: { query: { match_all: {} } } });
    assert.equal(body.hits.total.value, 1);
    const err = await expectStatus(() => reader.index({ index: INDEX, id: '2', body: { n: 2 } }), 403);
    assert.equal(err.meta.body.error.type, 'security_exception');
    assert.equal(err.meta.body.error.reason,
      'no permissions for [indices:data/write/index] and User [name=viewer, backend_roles=[], requestedTenant=null]');
  });

  it('no credentials: 401', async () => {
    const anon = connect(null);
    const err = await expectStatus(() => anon.info(), 401);
    assert.equal(err.meta.headers['www-authenticate'], 'Basic realm="OpenSearch Security"');
  });
});
