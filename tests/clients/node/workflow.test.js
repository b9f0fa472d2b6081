'use strict';
/*
 * The official OpenSearch JavaScript client (@opensearch-project/opensearch,
 * pinned in package-lock.json) against `trove serve`, used the way an
 * application uses it: one index with an explicit mapping, 1,000 generated
 * documents loaded with the bulk helper and with raw _bulk, then searches
 * (with aggregations and highlighting), document CRUD, by-query writes, aliases, scroll, point in time, cluster
 * health and the client's error type.
 *
 * How: the test starts its own `trove serve --port 0` (in memory) from
 * $TROVE_BIN (default: build/trove at the repository root), reads the URL from
 * the "listening on" line on stderr, and stops the server with SIGTERM at the
 * end, failing if it did not exit cleanly. Every step is one `it` inside a
 * single `describe`, run in order and sharing the index; each asserts exact
 * values computed from the generated documents (counts, ids in order, versions),
 * never just "no error". The documents are a pure function of their number, so
 * every expected value is computed here with plain JavaScript filters.
 *
 * Rejected: a mock transport (it would test the client, not trove); one test
 * per API with its own index (slower, and an application's state carries over
 * between calls, which is what this test is meant to catch); comparing scores
 * (the query tests and the oracle cover BM25, here only ids and counts matter).
 */
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { Client, errors } = require('@opensearch-project/opensearch');
const { startTrove, stopTrove } = require('./trove_server');


/* ---- the data: document i is a pure function of i ---- */

const N = 1000;
const INDEX = 'products';
const ALIAS = 'products-live';
const ANIMALS = ['fox', 'dog', 'cat', 'owl', 'bee'];
const COLORS = ['red', 'green', 'blue', 'black'];
const CATEGORIES = ['books', 'music', 'garden', 'toys', 'tools', 'food', 'games'];

function makeDoc(i) {
  const day = new Date(Date.UTC(2024, 0, 1) + (i % 365) * 86400000);
  return {
    title: `quick ${COLORS[i % 4]} ${ANIMALS[i % 5]}`,
    category: CATEGORIES[i % 7],
    price: i,
    rank: (i * 7919) % N, // a permutation of 0..999: sorting by it is not sorting by id
    in_stock: i % 2 === 0,
    created: day.toISOString().slice(0, 10),
  };
}

const DOCS = Array.from({ length: N }, (_, i) => makeDoc(i));
const idsWhere = (pred) => DOCS.map((d, i) => [d, i]).filter(([d, i]) => pred(d, i)).map(([, i]) => String(i));
const BY_RANK = DOCS.map((d, i) => [d.rank, String(i)]).sort((a, b) => a[0] - b[0]).map(([, id]) => id);

/* ---- the server ---- */


/** Runs fn, which must reject with the client's ResponseError; returns it. */
async function expectResponseError(fn, statusCode, type) {
  let err = null;
  try {
    await fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err, `expected a ${statusCode} ${type}, the call succeeded`);
  assert.ok(err instanceof errors.ResponseError, `expected ResponseError, got ${err && err.name}: ${err}`);
  assert.equal(err.meta.statusCode, statusCode, JSON.stringify(err.meta.body));
  assert.equal(err.meta.body.error.type, type, JSON.stringify(err.meta.body));
  assert.equal(err.meta.body.status, statusCode);
  return err;
}

const hitIds = (body) => body.hits.hits.map((h) => h._id);
const countOf = async (client, index) => (await client.count({ index })).body.count;

/* ---- the workflow ---- */

describe('official OpenSearch client against trove serve', () => {
  let server;
  let client;

  before(async () => {
    server = await startTrove();
    client = new Client({ node: server.url, maxRetries: 0, requestTimeout: 10000 });
  });

  after(async () => {
    if (client) await client.close();
    if (server) {
      const { code, signal } = await stopTrove(server);
      assert.equal(code, 0, `trove serve exited with ${code ?? signal}: ${server.log()}`);
    }
  });

  it('info: GET / is an OpenSearch distribution', async () => {
    const { statusCode, body } = await client.info();
    assert.equal(statusCode, 200);
    assert.equal(body.version.distribution, 'opensearch');
    assert.match(body.version.number, /^3\.\d+\.\d+/);
    assert.equal(typeof body.cluster_name, 'string');
  });

  it('creates an index with settings and a mapping', async () => {
    const { body } = await client.indices.create({
      index: INDEX,
      body: {
        settings: { number_of_shards: 1, number_of_replicas: 0 },
        mappings: {
          properties: {
            title: { type: 'text' },
            category: { type: 'keyword' },
            price: { type: 'integer' },
            rank: { type: 'integer' },
            in_stock: { type: 'boolean' },
            created: { type: 'date' },
          },
        },
      },
    });
    assert.deepEqual(body, { acknowledged: true, shards_acknowledged: true, index: INDEX });
    const { body: mapping } = await client.indices.getMapping({ index: INDEX });
    assert.equal(mapping[INDEX].mappings.properties.category.type, 'keyword');
    assert.equal(mapping[INDEX].mappings.properties.created.type, 'date');
  });

  it('creating it again is a 400 resource_already_exists_exception', async () => {
    const err = await expectResponseError(
      () => client.indices.create({ index: INDEX }),
      400,
      'resource_already_exists_exception'
    );
    assert.equal(err.meta.body.error.index, INDEX);
  });

  it('loads 500 documents with helpers.bulk', async () => {
    const dropped = [];
    const result = await client.helpers.bulk({
      datasource: DOCS.slice(0, 500).map((d, i) => ({ ...d, _n: i })),
      flushBytes: 16 * 1024, // several _bulk requests, not one
      concurrency: 2,
      onDocument(doc) {
        const id = String(doc._n);
        delete doc._n;
        return { index: { _index: INDEX, _id: id } };
      },
      onDrop(d) {
        dropped.push(d);
      },
    });
    assert.deepEqual(dropped, []);
    assert.equal(result.total, 500);
    assert.equal(result.successful, 500);
    assert.equal(result.failed, 0);
    assert.ok(result.bytes > 0);
  });

  it('loads 500 more with a raw client.bulk', async () => {
    const body = [];
    for (let i = 500; i < N; i++) {
      body.push(i % 2 ? { index: { _index: INDEX, _id: String(i) } } : { create: { _id: String(i) } });
      body.push(DOCS[i]);
    }
    const { statusCode, body: res } = await client.bulk({ index: INDEX, body });
    assert.equal(statusCode, 200);
    assert.equal(res.errors, false);
    assert.equal(res.items.length, 500);
    res.items.forEach((item, k) => {
      const op = (500 + k) % 2 ? 'index' : 'create';
      assert.deepEqual(Object.keys(item), [op]);
      assert.equal(item[op]._id, String(500 + k));
      assert.equal(item[op].status, 201);
      assert.equal(item[op].result, 'created');
      assert.equal(item[op]._version, 1);
    });
  });

  it('a bulk create of an existing id reports a per-item 409', async () => {
    const { body: res } = await client.bulk({
      body: [{ create: { _index: INDEX, _id: '7' } }, DOCS[7]],
    });
    assert.equal(res.errors, true);
    assert.equal(res.items[0].create.status, 409);
    assert.equal(res.items[0].create.error.type, 'version_conflict_engine_exception');
  });

  it('refreshes and counts 1,000', async () => {
    const { body } = await client.indices.refresh({ index: INDEX });
    assert.equal(body._shards.failed, 0);
    const { body: count } = await client.count({ index: INDEX });
    assert.equal(count.count, N);
    const { body: c2 } = await client.count({ index: INDEX, body: { query: { term: { category: 'books' } } } });
    assert.equal(c2.count, idsWhere((d) => d.category === 'books').length);
  });

  it('match query', async () => {
    const { body } = await client.search({
      index: INDEX,
      body: { query: { match: { title: 'fox' } }, size: 5 },
    });
    const expected = idsWhere((d) => d.title.endsWith(' fox'));
    assert.equal(expected.length, 200);
    assert.deepEqual(body.hits.total, { value: 200, relation: 'eq' });
    assert.equal(body.hits.hits.length, 5);
    for (const h of body.hits.hits) {
      assert.equal(h._index, INDEX);
      assert.ok(h._source.title.includes('fox'), h._source.title);
      assert.equal(typeof h._score, 'number');
    }
    assert.equal(body.timed_out, false);
    assert.equal(body._shards.failed, 0);
  });

  it('bool query: must, filter, should, must_not', async () => {
    const query = {
      bool: {
        must: [{ match: { title: 'fox' } }],
        filter: [{ range: { price: { gte: 100, lt: 300 } } }],
        should: [{ term: { category: 'books' } }],
        must_not: [{ term: { in_stock: false } }],
      },
    };
    const { body } = await client.search({ index: INDEX, body: { query, sort: [{ price: 'asc' }], size: 50 } });
    const expected = idsWhere((d) => d.title.endsWith(' fox') && d.price >= 100 && d.price < 300 && d.in_stock);
    assert.equal(expected.length, 20);
    assert.equal(body.hits.total.value, 20);
    assert.deepEqual(hitIds(body), expected);
    assert.deepEqual(body.hits.hits[0].sort, [100]);

    query.bool.minimum_should_match = 1;
    const { body: b2 } = await client.search({ index: INDEX, body: { query, sort: [{ price: 'asc' }] } });
    assert.deepEqual(
      hitIds(b2),
      expected.filter((id) => DOCS[Number(id)].category === 'books')
    );
    assert.deepEqual(hitIds(b2), ['140', '210', '280']);
  });

  it('match_phrase', async () => {
    const { body } = await client.search({
      index: INDEX,
      body: { query: { match_phrase: { title: 'red fox' } }, size: 0 },
    });
    assert.equal(body.hits.total.value, idsWhere((d) => d.title === 'quick red fox').length);
    assert.equal(body.hits.total.value, 50);
    assert.deepEqual(body.hits.hits, []);
    const { body: none } = await client.search({
      index: INDEX,
      body: { query: { match_phrase: { title: 'fox red' } } },
    });
    assert.equal(none.hits.total.value, 0);
  });

  it('aggregations and highlighting', async () => {
    const { body } = await client.search({
      index: INDEX,
      body: {
        size: 2,
        query: { match: { title: 'fox' } },
        sort: [{ price: 'asc' }],
        aggs: {
          cats: { terms: { field: 'category', size: 3 }, aggs: { avg_price: { avg: { field: 'price' } } } },
          months: { date_histogram: { field: 'created', calendar_interval: 'month' } },
          price_stats: { stats: { field: 'price' } },
        },
        highlight: { fields: { title: {} } },
      },
    });
    const fox = DOCS.filter((d) => d.title.endsWith(' fox'));
    // terms: count descending, then key ascending; the rest in sum_other_doc_count
    const byCat = new Map();
    for (const d of fox) {
      const e = byCat.get(d.category) || { n: 0, sum: 0 };
      e.n += 1;
      e.sum += d.price;
      byCat.set(d.category, e);
    }
    const cats = [...byCat.entries()].sort((a, b) => b[1].n - a[1].n || (a[0] < b[0] ? -1 : 1));
    const top = cats.slice(0, 3);
    assert.deepEqual(body.aggregations.cats, {
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: cats.slice(3).reduce((t, [, e]) => t + e.n, 0),
      buckets: top.map(([k, e]) => ({ key: k, doc_count: e.n, avg_price: { value: e.sum / e.n } })),
    });
    // date_histogram by calendar month, keys at the month's first millisecond (UTC)
    const months = new Map();
    for (const d of fox) {
      const key = Date.UTC(Number(d.created.slice(0, 4)), Number(d.created.slice(5, 7)) - 1, 1);
      months.set(key, (months.get(key) || 0) + 1);
    }
    assert.deepEqual(
      body.aggregations.months.buckets,
      [...months.entries()].sort((a, b) => a[0] - b[0]).map(([k, n]) => ({
        key_as_string: new Date(k).toISOString(),
        key: k,
        doc_count: n,
      }))
    );
    const prices = fox.map((d) => d.price);
    const sum = prices.reduce((t, p) => t + p, 0);
    assert.deepEqual(body.aggregations.price_stats, {
      count: 200, min: Math.min(...prices), max: Math.max(...prices), avg: sum / 200, sum,
    });
    // the two cheapest foxes, their titles highlighted
    const cheapest = idsWhere((d) => d.title.endsWith(' fox')).slice(0, 2);
    assert.deepEqual(hitIds(body), cheapest);
    assert.deepEqual(
      body.hits.hits.map((h) => h.highlight),
      cheapest.map((id) => ({ title: [DOCS[Number(id)].title.replace(/fox$/, '<em>fox</em>')] }))
    );
  });

  it('sort and from/size pagination', async () => {
    const pages = [];
    for (let from = 0; from < 50; from += 10) {
      const { body } = await client.search({
        index: INDEX,
        from,
        size: 10,
        body: { query: { match_all: {} }, sort: [{ rank: 'asc' }] },
      });
      assert.equal(body.hits.total.value, N);
      assert.equal(body.hits.max_score, null);
      pages.push(...hitIds(body));
      assert.deepEqual(body.hits.hits.map((h) => h.sort[0]), [...Array(10).keys()].map((k) => from + k));
    }
    assert.deepEqual(pages, BY_RANK.slice(0, 50));
    // descending on another field, paged through the body
    const { body } = await client.search({
      index: INDEX,
      body: { from: 995, size: 10, sort: [{ price: { order: 'desc' } }] },
    });
    assert.deepEqual(hitIds(body), ['4', '3', '2', '1', '0']);
  });

  it('search_after walks all 1,000 documents in sort order', async () => {
    const seen = [];
    let after;
    let requests = 0;
    for (;;) {
      const { body } = await client.search({
        index: INDEX,
        body: {
          size: 150,
          sort: [{ rank: 'asc' }],
          track_total_hits: false,
          ...(after ? { search_after: after } : {}),
        },
      });
      requests++;
      if (body.hits.hits.length === 0) break;
      seen.push(...hitIds(body));
      after = body.hits.hits[body.hits.hits.length - 1].sort;
      assert.ok(requests < 20);
    }
    assert.equal(requests, 8); // 7 pages of up to 150, then an empty one
    assert.deepEqual(seen, BY_RANK);
  });

  it('get and mget', async () => {
    const { body } = await client.get({ index: INDEX, id: '42' });
    assert.equal(body._index, INDEX);
    assert.equal(body._id, '42');
    assert.equal(body.found, true);
    assert.equal(body._version, 1);
    assert.deepEqual(body._source, DOCS[42]);

    const { body: m } = await client.mget({ index: INDEX, body: { ids: ['1', '999', 'nope'] } });
    assert.deepEqual(m.docs.map((d) => [d._id, d.found]), [['1', true], ['999', true], ['nope', false]]);
    assert.deepEqual(m.docs[1]._source, DOCS[999]);

    const { body: m2 } = await client.mget({
      body: { docs: [{ _index: INDEX, _id: '3', _source: ['price'] }] },
    });
    assert.deepEqual(m2.docs[0]._source, { price: 3 });
  });

  it('update: partial doc, noop, upsert', async () => {
    const { body } = await client.update({
      index: INDEX,
      id: '42',
      refresh: 'true',
      body: { doc: { price: 4242, in_stock: false } },
    });
    assert.equal(body.result, 'updated');
    assert.equal(body._version, 2);
    const { body: got } = await client.get({ index: INDEX, id: '42' });
    assert.deepEqual(got._source, { ...DOCS[42], price: 4242, in_stock: false });

    const { body: noop } = await client.update({ index: INDEX, id: '42', body: { doc: { price: 4242 } } });
    assert.equal(noop.result, 'noop');
    assert.equal(noop._version, 2);

    const { body: up1 } = await client.update({
      index: INDEX,
      id: 'extra-1',
      body: { doc: { title: 'slow purple fox', category: 'misc', price: 5000 }, doc_as_upsert: true },
    });
    assert.equal(up1.result, 'created');
    assert.equal(up1._version, 1);
    const { body: up2 } = await client.update({
      index: INDEX,
      id: 'extra-2',
      refresh: 'wait_for',
      body: { doc: { price: 1 }, upsert: { title: 'slow purple owl', category: 'misc', price: 5001 } },
    });
    assert.equal(up2.result, 'created');
    const { body: g2 } = await client.get({ index: INDEX, id: 'extra-2' });
    assert.deepEqual(g2._source, { title: 'slow purple owl', category: 'misc', price: 5001 });

    await expectResponseError(
      () => client.update({ index: INDEX, id: 'missing', body: { doc: { price: 1 } } }),
      404,
      'document_missing_exception'
    );

    const { body: c } = await client.count({ index: INDEX, body: { query: { term: { category: 'misc' } } } });
    assert.equal(c.count, 2);
  });

  it('delete a document', async () => {
    const { body } = await client.delete({ index: INDEX, id: 'extra-1', refresh: 'true' });
    assert.equal(body.result, 'deleted');
    assert.equal(body._version, 2);
    // deleting it again: OpenSearch answers 404 with the delete result (not an error envelope)
    const again = await client.delete({ index: INDEX, id: 'extra-1' }).catch((e) => e);
    assert.ok(again instanceof errors.ResponseError, String(again));
    assert.equal(again.meta.statusCode, 404);
    assert.equal(again.meta.body.result, 'not_found');
    assert.equal(again.meta.body._id, 'extra-1');
    const { body: ex } = await client.exists({ index: INDEX, id: 'extra-1' });
    assert.equal(ex, false);
    const { body: ex2 } = await client.exists({ index: INDEX, id: 'extra-2' });
    assert.equal(ex2, true);
  });

  it('delete by query', async () => {
    const food = idsWhere((d) => d.category === 'food');
    const { body } = await client.deleteByQuery({
      index: INDEX,
      refresh: true,
      body: { query: { term: { category: 'food' } } },
    });
    assert.equal(body.deleted, food.length);
    assert.equal(body.total, food.length);
    assert.deepEqual(body.failures, []);
    assert.equal(body.version_conflicts, 0);
    const { body: c } = await client.count({ index: INDEX });
    assert.equal(c.count, N - food.length + 1); // + extra-2
  });

  it('update by query (no script) bumps versions; scripts run as Painless', async () => {
    const games = idsWhere((d) => d.category === 'games');
    const { body } = await client.updateByQuery({
      index: INDEX,
      refresh: true,
      body: { query: { term: { category: 'games' } } },
    });
    assert.equal(body.updated, games.length);
    assert.equal(body.total, games.length);
    assert.deepEqual(body.failures, []);
    const { body: got } = await client.get({ index: INDEX, id: games[0] });
    assert.equal(got._version, 2);
    assert.deepEqual(got._source, DOCS[Number(games[0])]);

    // a script that leaves every document alone counts noops and writes nothing
    const { body: noop } = await client.updateByQuery({
      index: INDEX,
      body: {
        query: { term: { category: 'games' } },
        script: { source: "if (ctx._source.category == params.c) { ctx.op = 'noop' }", params: { c: 'games' } },
      },
    });
    assert.equal(noop.noops, games.length);
    assert.equal(noop.updated, 0);
    const { body: same } = await client.get({ index: INDEX, id: games[0] });
    assert.equal(same._version, 2);

    // a broken script is OpenSearch's compile error
    const err = await expectResponseError(
      () =>
        client.updateByQuery({
          index: INDEX,
          body: { query: { term: { category: 'games' } }, script: { source: 'ctx._source.price += ' } },
        }),
      400,
      'script_exception'
    );
    assert.equal(err.meta.body.error.reason, 'compile error');
  });

  it('aliases: add, search through, list', async () => {
    const { body } = await client.indices.updateAliases({
      body: { actions: [{ add: { index: INDEX, alias: ALIAS } }] },
    });
    assert.deepEqual(body, { acknowledged: true });

    const { body: s } = await client.search({
      index: ALIAS,
      body: { query: { term: { category: 'books' } }, sort: [{ price: 'asc' }], size: 3 },
    });
    assert.deepEqual(hitIds(s), ['0', '7', '14']);
    assert.equal(s.hits.hits[0]._index, INDEX); // hits name the concrete index

    const { body: ex } = await client.indices.existsAlias({ name: ALIAS });
    assert.equal(ex, true);
    const { body: a } = await client.indices.getAlias({ name: ALIAS });
    assert.deepEqual(a, { [INDEX]: { aliases: { [ALIAS]: {} } } });
    // the alias counts what the index counts (earlier steps' writes included)
    const viaAlias = await countOf(client, ALIAS);
    assert.equal(viaAlias, await countOf(client, INDEX));
    assert.ok(viaAlias > 800, String(viaAlias));
  });

  it('GET /_aliases lists every index with its aliases', async () => {
    // no client method: through the client's transport, as applications do
    const { body: all } = await client.transport.request({ method: 'GET', path: '/_aliases' });
    assert.deepEqual(all, { [INDEX]: { aliases: { [ALIAS]: {} } } });
  });

  it('aliases: remove', async () => {

    const { body: rm } = await client.indices.deleteAlias({ index: INDEX, name: ALIAS });
    assert.deepEqual(rm, { acknowledged: true });
    const { body: ex2 } = await client.indices.existsAlias({ name: ALIAS });
    assert.equal(ex2, false);
    await expectResponseError(() => client.search({ index: ALIAS }), 404, 'index_not_found_exception');
  });

  it('scroll with helpers.scrollSearch', async () => {
    const books = idsWhere((d) => d.category === 'books');
    const seen = [];
    let pages = 0;
    for await (const res of client.helpers.scrollSearch({
      index: INDEX,
      scroll: '30s',
      size: 40,
      body: { query: { term: { category: 'books' } }, sort: ['_doc'] },
    })) {
      pages++;
      assert.ok(typeof res.body._scroll_id === 'string' && res.body._scroll_id.length > 0);
      assert.equal(res.body.hits.total.value, books.length);
      seen.push(...hitIds(res.body));
    }
    assert.equal(pages, Math.ceil(books.length / 40));
    assert.deepEqual([...seen].sort(), [...books].sort());
    assert.equal(new Set(seen).size, seen.length);
  });

  it('manual scroll, clear, and a cleared scroll is a 404', async () => {
    const { body: first } = await client.search({
      index: INDEX,
      scroll: '1m',
      size: 400,
      body: { sort: [{ rank: 'asc' }] },
    });
    const total = first.hits.total.value;
    const seen = hitIds(first);
    let id = first._scroll_id;
    for (;;) {
      const { body } = await client.scroll({ body: { scroll_id: id, scroll: '1m' } });
      if (body.hits.hits.length === 0) break;
      seen.push(...hitIds(body));
      id = body._scroll_id;
    }
    assert.equal(seen.length, total);
    assert.equal(total, await countOf(client, INDEX));
    assert.equal(new Set(seen).size, seen.length);
    // one sorted order across pages: generated documents by rank, then extra-2 (no rank: missing values last)
    assert.equal(seen[seen.length - 1], 'extra-2');
    const rankOrder = new Map(BY_RANK.map((id, k) => [id, k]));
    const positions = seen.slice(0, -1).map((i) => rankOrder.get(i));
    assert.ok(positions.every((p, k) => p !== undefined && (k === 0 || p > positions[k - 1])));

    const { body: cleared } = await client.clearScroll({ body: { scroll_id: [id] } });
    assert.deepEqual(cleared, { succeeded: true, num_freed: 1 });
    // OpenSearch: every shard failed with search_context_missing_exception, so a 404 all-shards failure
    const gone = await expectResponseError(
      () => client.scroll({ body: { scroll_id: id, scroll: '1m' } }),
      404,
      'search_phase_execution_exception'
    );
    assert.equal(gone.meta.body.error.root_cause[0].type, 'search_context_missing_exception');
    // clearing it again frees nothing: 404 with the clear-scroll body
    const again = await client.clearScroll({ body: { scroll_id: [id] } }).catch((e) => e);
    assert.ok(again instanceof errors.ResponseError, String(again));
    assert.equal(again.meta.statusCode, 404);
    assert.deepEqual(again.meta.body, { succeeded: true, num_freed: 0 });
  });

  it('point in time: create, search with search_after, delete', async () => {
    if (typeof client.createPit !== 'function') return; // older clients have no PIT API
    const before = await countOf(client, INDEX);
    const { body: pit } = await client.createPit({ index: INDEX, keep_alive: '1m' });
    assert.equal(typeof pit.pit_id, 'string');
    assert.equal(pit._shards.failed, 0);

    // a write after the PIT is not visible through it
    await client.index({ index: INDEX, id: 'after-pit', refresh: 'true', body: { title: 'late fox', price: 1 } });

    const seen = [];
    let after;
    for (;;) {
      const { body } = await client.search({
        body: {
          size: 300,
          pit: { id: pit.pit_id, keep_alive: '1m' },
          sort: [{ price: 'asc' }],
          ...(after ? { search_after: after } : {}),
        },
      });
      if (body.hits.hits.length === 0) break;
      assert.equal(typeof body.pit_id, 'string');
      seen.push(...hitIds(body));
      after = body.hits.hits[body.hits.hits.length - 1].sort;
    }
    assert.ok(!seen.includes('after-pit'));
    assert.equal(seen.length, before);
    assert.equal(await countOf(client, INDEX), before + 1);

    const { body: del } = await client.deletePit({ body: { pit_id: [pit.pit_id] } });
    assert.deepEqual(del.pits, [{ pit_id: pit.pit_id, successful: true }]);
    await client.delete({ index: INDEX, id: 'after-pit', refresh: 'true' });
  });

  it('cluster health', async () => {
    const { body } = await client.cluster.health({ wait_for_status: 'green', timeout: '5s' });
    assert.equal(body.status, 'green');
    assert.equal(body.timed_out, false);
    assert.equal(body.number_of_nodes, 1);
    assert.equal(body.active_primary_shards, 1);
    assert.equal(body.unassigned_shards, 0);
    const { body: idx } = await client.cluster.health({ index: INDEX, level: 'indices' });
    assert.equal(idx.indices[INDEX].status, 'green');
  });

  it('_cat/indices', async () => {
    const { body: cat } = await client.cat.indices({ index: INDEX, format: 'json' });
    assert.equal(cat.length, 1);
    assert.equal(cat[0].index, INDEX);
    assert.equal(cat[0].health, 'green');
    assert.equal(cat[0].status, 'open');
    assert.equal(cat[0].pri, '1');
    assert.equal(cat[0].rep, '0');
    assert.equal(cat[0]['docs.count'], String(await countOf(client, INDEX)));
  });

  it('msearch, with a per-search error', async () => {
    const { body: ms } = await client.msearch({
      body: [
        { index: INDEX },
        { query: { term: { category: 'books' } }, size: 0 },
        { index: 'no-such-index' },
        { query: { match_all: {} } },
        {},
        { query: { match: { title: 'owl' } }, sort: [{ price: 'asc' }], size: 2 },
      ],
      index: INDEX,
    });
    assert.equal(ms.responses.length, 3);
    assert.equal(ms.responses[0].status, 200);
    assert.equal(ms.responses[0].hits.total.value, idsWhere((d) => d.category === 'books').length);
    assert.equal(ms.responses[1].status, 404);
    assert.equal(ms.responses[1].error.type, 'index_not_found_exception');
    assert.deepEqual(hitIds(ms.responses[2]), ['3', '8']);
  });

  it('URI search: q= with sort= on _search and _count', async () => {
    const { body } = await client.search({ index: INDEX, q: 'title:owl AND category:books', sort: 'price:asc', size: 3 });
    const expected = idsWhere((d) => d.title.endsWith(' owl') && d.category === 'books');
    assert.equal(body.hits.total.value, expected.length);
    assert.deepEqual(hitIds(body), expected.slice(0, 3));
    const { body: c } = await client.count({ index: INDEX, q: 'category:toys' });
    assert.equal(c.count, idsWhere((d) => d.category === 'toys').length);
  });

  it('index template applies to a new index', async () => {
    const { body } = await client.indices.putIndexTemplate({
      name: 'logs-template',
      body: {
        index_patterns: ['logs-*'],
        template: {
          settings: { number_of_shards: 1, number_of_replicas: 0 },
          mappings: { properties: { level: { type: 'keyword' }, at: { type: 'date' } } },
        },
      },
    });
    assert.deepEqual(body, { acknowledged: true });
    await client.index({ index: 'logs-2024', id: '1', refresh: 'true', body: { level: 'warn', at: '2024-05-01' } });
    const { body: m } = await client.indices.getMapping({ index: 'logs-2024' });
    assert.equal(m['logs-2024'].mappings.properties.level.type, 'keyword');
    assert.equal(m['logs-2024'].mappings.properties.at.type, 'date');
    const { body: t } = await client.indices.getIndexTemplate({ name: 'logs-template' });
    assert.equal(t.index_templates[0].name, 'logs-template');
    assert.deepEqual(t.index_templates[0].index_template.index_patterns, ['logs-*']);
    await client.indices.delete({ index: 'logs-2024' });
    const { body: d } = await client.indices.deleteIndexTemplate({ name: 'logs-template' });
    assert.deepEqual(d, { acknowledged: true });
  });

  it('nested objects: nested query with inner_hits, nested aggregations, nested sort', async () => {
    await client.indices.create({
      index: 'orders',
      body: {
        mappings: {
          properties: {
            customer: { type: 'keyword' },
            lines: { type: 'nested', properties: { sku: { type: 'keyword' }, qty: { type: 'integer' } } },
          },
        },
      },
    });
    await client.bulk({
      refresh: 'true',
      body: [
        { index: { _index: 'orders', _id: 'o1' } },
        { customer: 'ann', lines: [{ sku: 'pen', qty: 2 }, { sku: 'ink', qty: 9 }] },
        { index: { _index: 'orders', _id: 'o2' } },
        { customer: 'bob', lines: [{ sku: 'ink', qty: 1 }] },
      ],
    });
    // one line must carry both conditions: o1's ink line, not o2's
    const { body } = await client.search({
      index: 'orders',
      body: {
        query: {
          nested: {
            path: 'lines',
            query: { bool: { must: [{ term: { 'lines.sku': 'ink' } }, { range: { 'lines.qty': { gte: 5 } } }] } },
            inner_hits: {},
          },
        },
      },
    });
    assert.deepEqual(hitIds(body), ['o1']);
    const inner = body.hits.hits[0].inner_hits.lines.hits;
    assert.equal(inner.total.value, 1);
    assert.deepEqual(inner.hits[0]._nested, { field: 'lines', offset: 1 });
    assert.deepEqual(inner.hits[0]._source, { sku: 'ink', qty: 9 });
    const { body: c } = await client.count({ index: 'orders' });
    assert.equal(c.count, 2); // the lines are hidden documents
    const { body: a } = await client.search({
      index: 'orders',
      body: {
        size: 0,
        aggs: {
          lines: {
            nested: { path: 'lines' },
            aggs: { sku: { terms: { field: 'lines.sku' }, aggs: { orders: { reverse_nested: {} } } } },
          },
        },
      },
    });
    assert.equal(a.aggregations.lines.doc_count, 3);
    assert.deepEqual(
      a.aggregations.lines.sku.buckets.map((b) => [b.key, b.doc_count, b.orders.doc_count]),
      [['ink', 2, 2], ['pen', 1, 1]]
    );
    const { body: s } = await client.search({
      index: 'orders',
      body: { sort: [{ 'lines.qty': { order: 'desc', mode: 'sum', nested: { path: 'lines' } } }] },
    });
    assert.deepEqual(hitIds(s), ['o1', 'o2']);
    assert.deepEqual(s.hits.hits.map((h) => h.sort[0]), [11, 1]);
    await client.indices.delete({ index: 'orders' });
  });

  it('errors surface as ResponseError with the OpenSearch body', async () => {
    const err = await expectResponseError(
      () => client.search({ index: 'no-such-index', body: { query: { match_all: {} } } }),
      404,
      'index_not_found_exception'
    );
    assert.equal(err.meta.body.error.index, 'no-such-index');
    assert.equal(err.meta.body.error.root_cause[0].type, 'index_not_found_exception');
    assert.match(err.message, /^index_not_found_exception/);

    await expectResponseError(
      () => client.search({ index: INDEX, body: { query: { no_such_query: {} } } }),
      400,
      'parsing_exception'
    );
    const miss = await client.get({ index: INDEX, id: 'nope' }).catch((e) => e);
    assert.ok(miss instanceof errors.ResponseError);
    assert.equal(miss.meta.statusCode, 404);
    assert.equal(miss.meta.body.found, false);
  });

  it('index exists, delete, exists again', async () => {
    const { body: ex } = await client.indices.exists({ index: INDEX });
    assert.equal(ex, true);
    const { body } = await client.indices.delete({ index: INDEX });
    assert.deepEqual(body, { acknowledged: true });
    const { body: ex2 } = await client.indices.exists({ index: INDEX });
    assert.equal(ex2, false);
    await expectResponseError(() => client.indices.delete({ index: INDEX }), 404, 'index_not_found_exception');
  });
});
