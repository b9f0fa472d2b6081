'use strict';
/*
 * The official OpenSearch JavaScript client's monitoring calls against
 * `trove serve`, as ops scripts and metric exporters make them: nodes
 * info and stats, cluster stats/state/health/settings, the _cat APIs in
 * JSON, the tasks list, and an exporter-style scrape (GET /_nodes/stats,
 * /_cluster/health, /_all/_stats, /_cat/shards?format=json) after a known
 * number of documents was indexed.
 *
 * Every assertion is exact where the value is known (document counts,
 * names, the node attribute given on the command line) and a real-number
 * check where it is the machine's (memory between zero and the machine's,
 * uptime growing between scrapes, the HTTP connection the client holds).
 * Store sizes must agree across the endpoints that report the same bytes.
 *
 * Rejected: comparing whole bodies (timestamps, memory and load figures
 * change between calls); a mock transport (it would test the client).
 */
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const { Client } = require('@opensearch-project/opensearch');
const { startTrove, stopTrove } = require('./trove_server');

const INDEX = 'metrics-ops';
const N = 37;
const DELETED = 3;

describe('monitoring calls of the official client against trove serve', () => {
  let server;
  let client;
  let nodeId;

  before(async () => {
    server = await startTrove(['--node-attr', 'zone=z1']);
    client = new Client({ node: server.url, maxRetries: 0, requestTimeout: 10000 });
    await client.indices.create({
      index: INDEX,
      body: { settings: { number_of_shards: 1, number_of_replicas: 0 }, mappings: { properties: { n: { type: 'integer' } } } },
    });
    const body = [];
    for (let i = 0; i < N; i++) body.push({ index: { _index: INDEX, _id: String(i) } }, { n: i });
    const { body: bulk } = await client.bulk({ body, refresh: 'true' });
    assert.equal(bulk.errors, false);
    for (let i = 0; i < DELETED; i++) await client.delete({ index: INDEX, id: String(i), refresh: 'true' });
  });

  after(async () => {
    if (client) await client.close();
    if (server) {
      const { code, signal } = await stopTrove(server);
      assert.equal(code, 0, `trove serve exited with ${code ?? signal}: ${server.log()}`);
    }
  });

  it('nodes.info: one node with its roles and the attribute given', async () => {
    const { body } = await client.nodes.info();
    assert.deepEqual(body._nodes, { total: 1, successful: 1, failed: 0 });
    const ids = Object.keys(body.nodes);
    assert.equal(ids.length, 1);
    nodeId = ids[0];
    const node = body.nodes[nodeId];
    assert.deepEqual(node.roles, ['cluster_manager', 'data', 'ingest', 'remote_cluster_client']);
    assert.deepEqual(node.attributes, { zone: 'z1', shard_indexing_pressure_enabled: 'true' });
    assert.match(node.version, /^3\.\d+\.\d+/);
  });

  it('nodes.stats: selected metrics only, index metrics filtered', async () => {
    const { body } = await client.nodes.stats({ metric: 'indices', index_metric: 'docs' });
    const node = body.nodes[nodeId];
    assert.deepEqual(node.indices, { docs: { count: N - DELETED, deleted: DELETED } });
    assert.equal(node.jvm, undefined);
    const { body: lv } = await client.nodes.stats({ metric: 'indices', index_metric: 'docs', level: 'indices' });
    assert.deepEqual(lv.nodes[nodeId].indices.indices, { [INDEX]: { docs: { count: N - DELETED, deleted: DELETED } } });
    const { body: two } = await client.nodes.stats({ node_id: '_local', metric: 'jvm,os' });
    assert.deepEqual(Object.keys(two.nodes[nodeId]).slice(-2), ['os', 'jvm']);
    assert.equal(two.nodes[nodeId].attributes.zone, 'z1');
  });

  it('nodes.stats: an unknown metric is refused as OpenSearch refuses it', async () => {
    let err = null;
    try {
      await client.nodes.stats({ metric: 'jvmm' });
    } catch (e) {
      err = e;
    }
    assert.ok(err);
    assert.equal(err.meta.statusCode, 400);
    assert.equal(err.meta.body.error.type, 'illegal_argument_exception');
    assert.equal(err.meta.body.error.reason, 'request [/_nodes/stats/jvmm] contains unrecognized metric: [jvmm] -> did you mean [jvm]?');
  });

  it('cluster.stats, cluster.state, cluster.health, cluster.getSettings', async () => {
    const { body: cs } = await client.cluster.stats();
    assert.deepEqual(cs.indices.docs, { count: N - DELETED, deleted: DELETED });
    assert.equal(cs.indices.count, 1);
    assert.equal(cs.nodes.count.total, 1);
    const { body: st } = await client.cluster.state({ metric: 'metadata', index: INDEX });
    assert.equal(st.metadata.indices[INDEX].state, 'open');
    const { body: h } = await client.cluster.health();
    assert.equal(h.status, 'green');
    assert.equal(h.number_of_nodes, 1);
    assert.equal(h.active_primary_shards, 1);
    assert.equal(h.unassigned_shards, 0);
    const { body: gs } = await client.cluster.getSettings({ include_defaults: true, flat_settings: true });
    assert.deepEqual(gs.persistent, {});
    assert.deepEqual(gs.transient, {});
    assert.equal(gs.defaults['cluster.name'], h.cluster_name);
    assert.equal(gs.defaults['indices.breaker.request.limit'], '60%');
  });

  it('cat.* in JSON: nodes, shards, indices, allocation, nodeattrs, health, count', async () => {
    const nodes = (await client.cat.nodes({ format: 'json' })).body;
    assert.equal(nodes.length, 1);
    assert.equal(nodes[0]['node.roles'], 'cluster_manager,data,ingest,remote_cluster_client');
    assert.equal(nodes[0].cluster_manager, '*');
    const shards = (await client.cat.shards({ format: 'json', index: INDEX, bytes: 'b' })).body;
    assert.equal(shards.length, 1);
    assert.equal(shards[0].prirep, 'p');
    assert.equal(shards[0].state, 'STARTED');
    assert.equal(shards[0].docs, String(N - DELETED));
    const indices = (await client.cat.indices({ format: 'json', index: INDEX, bytes: 'b' })).body;
    assert.equal(indices.length, 1);
    assert.equal(indices[0]['docs.count'], String(N - DELETED));
    assert.equal(indices[0]['docs.deleted'], String(DELETED));
    assert.equal(indices[0].health, 'green');
    assert.equal(indices[0]['store.size'], shards[0].store);
    const alloc = (await client.cat.allocation({ format: 'json', bytes: 'b' })).body;
    assert.equal(alloc.length, 1);
    assert.equal(alloc[0].shards, '1');
    assert.ok(Number(alloc[0]['disk.total']) > 0);
    const attrs = (await client.cat.nodeattrs({ format: 'json', h: 'attr,value' })).body;
    assert.deepEqual(attrs, [
      { attr: 'zone', value: 'z1' },
      { attr: 'shard_indexing_pressure_enabled', value: 'true' },
    ]);
    const health = (await client.cat.health({ format: 'json', h: 'status,node.total,shards,unassign' })).body;
    assert.deepEqual(health, [{ status: 'green', 'node.total': '1', shards: '1', unassign: '0' }]);
    const count = (await client.cat.count({ format: 'json', index: INDEX, h: 'count' })).body;
    assert.deepEqual(count, [{ count: String(N - DELETED) }]);
  });

  it('cat.* in JSON: templates, threadPool, plugins, recovery, pendingTasks', async () => {
    assert.deepEqual((await client.cat.templates({ format: 'json' })).body, []);
    await client.indices.putIndexTemplate({ name: 'ops-tpl', body: { index_patterns: ['ops-*'], priority: 3 } });
    const tpl = (await client.cat.templates({ format: 'json', h: 'name,index_patterns,order' })).body;
    assert.deepEqual(tpl, [{ name: 'ops-tpl', index_patterns: '[ops-*]', order: '3' }]);
    const pools = (await client.cat.threadPool({ format: 'json', h: 'name,active,queue,rejected' })).body;
    const names = pools.map((p) => p.name);
    assert.deepEqual(names, [...names].sort());
    for (const want of ['search', 'write', 'get', 'management']) assert.ok(names.includes(want), want);
    assert.ok(pools.every((p) => p.active === '0' && p.queue === '0' && p.rejected === '0'));
    // the analysis plugins of this build, sorted: analysis-icu (built with ICU), analysis-kuromoji
    // (MeCab's IPADIC installed)
    const plugins = (await client.cat.plugins({ format: 'json', h: 'component' })).body.map((p) => p.component);
    assert.deepEqual(plugins, ['analysis-icu', 'analysis-kuromoji'].filter((p) => plugins.includes(p)),
      JSON.stringify(plugins));
    assert.ok(plugins.length > 0, 'make test installs ICU and the IPADIC');
    const rec = (await client.cat.recovery({ format: 'json', index: INDEX, h: 'index,shard,type,stage' })).body;
    assert.deepEqual(rec, [{ index: INDEX, shard: '0', type: 'empty_store', stage: 'done' }]);
    assert.deepEqual((await client.cat.pendingTasks({ format: 'json' })).body, []);
  });

  it('tasks.list: the listing task itself, on this node', async () => {
    const { body } = await client.tasks.list({ actions: 'cluster:monitor/tasks/lists' });
    const node = body.nodes[nodeId];
    assert.ok(node);
    const actions = Object.values(node.tasks).map((t) => t.action);
    assert.ok(actions.includes('cluster:monitor/tasks/lists'), JSON.stringify(actions));
    assert.ok(Object.values(node.tasks).every((t) => t.node === nodeId));
  });

  it('exporter scrape: real numbers, equal where OpenSearch makes them equal', async () => {
    const scrape = async () => ({
      nodes: (await client.transport.request({ method: 'GET', path: '/_nodes/stats' })).body,
      health: (await client.transport.request({ method: 'GET', path: '/_cluster/health' })).body,
      stats: (await client.transport.request({ method: 'GET', path: '/_all/_stats' })).body,
      shards: (await client.transport.request({ method: 'GET', path: '/_cat/shards', querystring: { format: 'json', bytes: 'b' } })).body,
    });
    const first = await scrape();
    const node = first.nodes.nodes[nodeId];
    // documents: what was indexed, less what was deleted, everywhere
    assert.equal(node.indices.docs.count, N - DELETED);
    assert.equal(first.stats._all.primaries.docs.count, N - DELETED);
    assert.equal(first.stats.indices[INDEX].total.docs.count, N - DELETED);
    assert.equal(first.shards[0].docs, String(N - DELETED));
    assert.equal(node.indices.indexing.index_total, N);
    assert.equal(node.indices.indexing.delete_total, DELETED);
    // store: > 0 and the same bytes in node stats, index stats and _cat/shards
    const store = node.indices.store.size_in_bytes;
    assert.ok(store > 0);
    assert.equal(first.stats._all.primaries.store.size_in_bytes, store);
    assert.equal(first.stats._all.total.store.size_in_bytes, store);
    assert.equal(first.shards[0].store, String(store));
    // memory: resident bytes > 0 and below the machine's
    assert.ok(node.jvm.mem.heap_used_in_bytes > 0);
    assert.ok(node.jvm.mem.heap_used_in_bytes < os.totalmem());
    assert.ok(node.jvm.mem.heap_max_in_bytes > 0);
    assert.ok(node.os.mem.total_in_bytes > 0 && node.os.mem.total_in_bytes <= os.totalmem() * 1.01);
    assert.ok(node.process.open_file_descriptors > 0);
    assert.ok(node.process.max_file_descriptors >= node.process.open_file_descriptors);
    assert.ok(node.jvm.threads.count >= 1);
    // the client's own connection is open
    assert.ok(node.http.current_open >= 1, JSON.stringify(node.http));
    assert.ok(node.http.total_opened >= node.http.current_open);
    assert.equal(first.health.status, 'green');
    assert.equal(first.health.active_shards, 1);
    await new Promise((r) => setTimeout(r, 30));
    const second = await scrape();
    const node2 = second.nodes.nodes[nodeId];
    assert.ok(node2.jvm.uptime_in_millis > node.jvm.uptime_in_millis);
    assert.ok(node2.timestamp >= node.timestamp);
    assert.equal(node2.indices.docs.count, N - DELETED);
  });
});
