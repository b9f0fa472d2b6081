/*
 * The Node fixture helper (sdk/node/index.js) driven by the official OpenSearch
 * JavaScript client, against the trove binary of $TROVE_BIN (default
 * build/trove at the repository root; relative paths are taken from there).
 *
 * Each case asserts what a test-suite author relies on: the ready-line fields,
 * seeded documents visible through the client, parallel workers that each
 * write into their own clone and see only their own writes, a base that stays
 * unchanged and answers 403 trove_base_frozen to writes, a bad seed rejecting
 * start() with the server's message, and `await using` cleaning up.
 *
 * The client is the one tests/clients/node installs (no second lock file);
 * run through sdk/node/run-tests, which installs it when missing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { mkdtemp, writeFile, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { TroveServer, TroveError } from '../index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const require = createRequire(path.join(root, 'tests', 'clients', 'node', 'package.json'));
const { Client, errors } = require('@opensearch-project/opensearch');

const bin = path.resolve(root, process.env.TROVE_BIN || path.join('build', 'trove'));
const SEED = path.join(root, 'tests', 'fixtures', 'seed', 'items');
const BAD_SEED = path.join(root, 'tests', 'fixtures', 'seed', 'bad');

const client = (url) => new Client({ node: url });

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let server;
before(async () => {
  server = await TroveServer.start({ seed: SEED, binary: bin });
});
after(async () => {
  const res = await server?.close();
  assert.equal(res.code, 0, `server exit: ${JSON.stringify(res)}; stderr: ${server.stderr}`);
});

test('ready line: url, pid, version and the seeded indices', () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(Number.isInteger(server.pid) && server.pid > 0);
  assert.ok(alive(server.pid));
  assert.equal(typeof server.version, 'string');
  assert.ok(server.version.length > 0);
  assert.deepEqual([...server.indices].sort(), ['items', 'logs-2024', 'logs-other']);
});

test('seeded data is visible through the official client', async () => {
  const os = client(server.url);
  const count = await os.count({ index: 'items' });
  assert.equal(count.body.count, 3);
  const doc = await os.get({ index: 'items', id: '2' });
  assert.equal(doc.body._source.title, 'Blue ceramic mug');
  const res = await os.search({
    index: 'shop', // alias from aliases.json
    body: { query: { term: { category: 'kitchen' } }, sort: [{ price: 'asc' }] },
  });
  assert.deepEqual(res.body.hits.hits.map((h) => h._id), ['2', '3']);
});

test('parallel workers each write to their own clone and see only their own writes', async () => {
  const WORKERS = 6;
  const seen = await Promise.all(
    Array.from({ length: WORKERS }, (_, w) =>
      server.withClone(async (url) => {
        assert.notEqual(url, server.url);
        const os = client(url);
        for (let i = 0; i < 3; i++) {
          await os.index({
            index: 'items',
            id: `w${w}-${i}`,
            body: { title: `worker ${w} item ${i}`, category: `worker-${w}`, price: w, created: '2024-05-01' },
            refresh: true,
          });
        }
        await os.delete({ index: 'items', id: '1', refresh: true });
        const all = await os.search({ index: 'items', body: { size: 100, query: { match_all: {} } } });
        return all.body.hits.hits.map((h) => h._id).sort();
      }),
    ),
  );
  seen.forEach((ids, w) => {
    assert.deepEqual(ids, ['2', '3', `w${w}-0`, `w${w}-1`, `w${w}-2`], `worker ${w}`);
  });
});

test('the base is unchanged by clone writes and frozen (403 on write)', async () => {
  await server.withClone(async (url) => {
    await client(url).index({ index: 'items', id: 'c1', body: { title: 'clone only' }, refresh: true });
  });
  const os = client(server.url);
  assert.equal((await os.count({ index: 'items' })).body.count, 3);
  await assert.rejects(
    os.index({ index: 'items', id: 'x', body: { title: 'nope' } }),
    (err) => {
      assert.ok(err instanceof errors.ResponseError);
      assert.equal(err.statusCode, 403);
      assert.equal(err.body.error.type, 'trove_base_frozen');
      return true;
    },
  );
  // and through plain fetch, as any other client would see it
  const res = await fetch(`${server.url}/items/_doc/y`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: '{"title":"nope"}',
  });
  assert.equal(res.status, 403);
  assert.equal((await res.json()).error.type, 'trove_base_frozen');
});

test('clone(): id and url, close() deletes it, close() twice is harmless', async () => {
  const clone = await server.clone();
  assert.equal(typeof clone.id, 'string');
  assert.match(clone.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await client(clone.url).count({ index: 'items' })).body.count, 3);
  const listed = await (await fetch(`${server.url}/_trove/clones/${clone.id}`)).status;
  assert.equal(listed, 200);
  await clone.close();
  await clone.close();
  assert.equal((await fetch(`${server.url}/_trove/clones/${clone.id}`)).status, 404);
});

test('a bad seed rejects start() with the server message', async () => {
  await assert.rejects(TroveServer.start({ seed: BAD_SEED, binary: bin }), (err) => {
    assert.ok(err instanceof TroveError);
    assert.match(err.message, /items\.ndjson:4/);
    assert.match(err.message, /mapper_parsing_exception/);
    assert.match(err.stderr, /failed to parse field \[price\]/);
    return true;
  });
});

test('a missing binary rejects start() with a clear message', async () => {
  await assert.rejects(
    TroveServer.start({ seed: SEED, binary: path.join(root, 'no-such-trove') }),
    /trove binary not found/,
  );
});

test('no ready line in time rejects start() with the timeout and stderr, and kills the process', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'trove-sdk-node-'));
  const fake = path.join(dir, 'fake-trove');
  const pidFile = path.join(dir, 'pid');
  await writeFile(fake, `#!/bin/sh\necho $$ > '${pidFile}'\necho "fake: still seeding" >&2\nexec sleep 30\n`, { mode: 0o755 });
  try {
    await assert.rejects(TroveServer.start({ binary: fake, timeout: 300 }), (err) => {
      assert.ok(err instanceof TroveError);
      assert.match(err.message, /no ready line within 300 ms/);
      assert.match(err.message, /fake: still seeding/);
      return true;
    });
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    assert.ok(!alive(pid), 'the process that never got ready is still running');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('freeze: the base starts frozen', async () => {
  const frozen = await TroveServer.start({ seed: SEED, binary: bin, freeze: true });
  try {
    const res = await fetch(`${frozen.url}/items/_doc/z`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"title":"nope"}',
    });
    assert.equal(res.status, 403);
  } finally {
    const r = await frozen.close();
    assert.equal(r.code, 0);
  }
  assert.ok(!alive(frozen.pid));
});

test('binary from $TROVE_BIN; close() escalates to SIGTERM when stdin is not watched', async () => {
  const saved = process.env.TROVE_BIN;
  process.env.TROVE_BIN = bin;
  let s;
  try {
    s = await TroveServer.start({ seed: SEED, args: ['--no-stdin-watch'] });
  } finally {
    if (saved === undefined) delete process.env.TROVE_BIN;
    else process.env.TROVE_BIN = saved;
  }
  const t0 = Date.now();
  const res = await s.close({ timeout: 300 });
  const waited = Date.now() - t0;
  // stdin EOF is ignored, so the stop comes from SIGTERM after the first grace period
  assert.ok(waited >= 250, `stopped after ${waited} ms, before the grace period`);
  assert.ok(res.code === 0 || res.signal === 'SIGTERM', JSON.stringify(res));
  assert.match(s.stderr, /stop/i);
  assert.ok(!alive(s.pid));
  assert.deepEqual(await s.close(), res); // idempotent
});

test(
  'await using / Symbol.asyncDispose stops the server and its clone',
  { skip: typeof Symbol.asyncDispose !== 'symbol' && `Node ${process.version} lacks Symbol.asyncDispose` },
  async () => {
    let pid;
    let cloneUrl;
    // `await using` is syntax Node 20 does not parse yet, so the statement is
    // compiled at run time where supported, and its semantics (dispose in
    // reverse order on scope exit) are reproduced with explicit calls otherwise.
    const usingSupported = (() => {
      try {
        new Function('return async () => { await using x = null; }');
        return true;
      } catch {
        return false;
      }
    })();
    if (usingSupported) {
      const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
      const body = new AsyncFunction(
        'TroveServer', 'opts', 'out',
        `{ await using s = await TroveServer.start(opts);
           await using c = await s.clone();
           out.pid = s.pid; out.cloneUrl = c.url;
           out.count = (await (await fetch(c.url + '/items/_count')).json()).count; }
         return out;`,
      );
      const out = await body(TroveServer, { seed: SEED, binary: bin }, {});
      assert.equal(out.count, 3);
      ({ pid, cloneUrl } = out);
    } else {
      const s = await TroveServer.start({ seed: SEED, binary: bin });
      const c = await s.clone();
      pid = s.pid;
      cloneUrl = c.url;
      await c[Symbol.asyncDispose]();
      await s[Symbol.asyncDispose]();
    }
    assert.ok(!alive(pid), 'server still running after dispose');
    await assert.rejects(fetch(`${cloneUrl}/items/_count`));
  },
);
