"""`trove sync` against a real PostgreSQL 15: every scenario ends with the
exact oracle of pgharness.assert_synced (every key, and each document read
back by PostgreSQL into the row type has the row's md5)."""
import json
import os
import random
import subprocess
import tempfile
import threading
import time

import pytest
import requests

from conftest import Server
from pgharness import Feed, assert_synced, index_docs, lsn_int


def snapshot_done(url, db):
    r = requests.get("%s/.trove_sync/_doc/%s" % (url, db.name))
    return r.status_code == 200 and r.json()["_source"]["snapshot_done"]


def wait_confirmed(db, lsn, timeout=30, feed=None, url=None):
    """Waits until the feed has read its snapshot and the slot has confirmed
    lsn (the feed made it durable). A slot created after lsn is confirmed at
    once, while its snapshot is still being read: hence both."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = db.slot()
        if s and s[0] and lsn_int(s[0]) >= lsn_int(lsn) and (url is None or snapshot_done(url, db)):
            return
        time.sleep(0.05)
    raise AssertionError("slot at %s, not %s%s" % (db.slot(), lsn, "\n" + feed.log() if feed else ""))


TYPES_TABLE = """
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN posint AS integer CHECK (VALUE > 0);
CREATE DOMAIN dmood AS mood;
CREATE TABLE items (
  id bigint PRIMARY KEY, name text, code varchar(10), flag boolean, small smallint, n integer,
  price numeric(12, 2), big numeric, ratio double precision, r4 real, born date, at timestamp,
  atz timestamptz, u uuid, doc jsonb, j json, tags text[], nums int[], grid int[][], raw bytea,
  ip inet, net cidr, m mood, span interval, t time, ch char(3),
  dm posint, moods mood[], dms posint[], dmo dmood
);
INSERT INTO items
SELECT g, 'item ' || g || ' "quoted" \\ back', 'c' || g, g % 2 = 0, g % 100, g * 7,
       g * 1.25, (10::numeric ^ 30) + g, g / 3.0, g / 7.0, DATE '2020-01-01' + g,
       TIMESTAMP '2020-01-01 00:00:00.123456' + g * INTERVAL '1 hour',
       TIMESTAMPTZ '2020-06-01 12:00:00+02' + g * INTERVAL '1 minute',
       md5(g::text)::uuid, jsonb_build_object('k', g, 'nested', jsonb_build_object('a', ARRAY[1, 2])),
       '{"x": [1, 2], "y": {"z": null}}', ARRAY['a,b', 'c"d', NULL, 'NULL', ''], ARRAY[g, NULL, -g],
       ARRAY[[1, 2], [3, 4]], decode(lpad(to_hex(g), 8, '0'), 'hex'),
       ('10.0.' || (g % 255) || '.1')::inet, '192.168.0.0/16', (ARRAY['sad', 'ok', 'happy'])[1 + g % 3]::mood,
       g * INTERVAL '90 seconds', TIME '10:11:12', 'ab',
       g + 1, ARRAY['sad', NULL, (ARRAY['sad', 'ok', 'happy'])[1 + g % 3]]::mood[], ARRAY[g + 1, NULL]::posint[], 'ok'
FROM generate_series(1, 3000) g;
INSERT INTO items (id) VALUES (0);
"""


def test_snapshot_of_every_common_type_and_key_kind(db, server):
    db.sql(TYPES_TABLE)
    db.sql("CREATE TABLE pairs (lang text, n int, word text, PRIMARY KEY (lang, n))")
    db.sql("INSERT INTO pairs SELECT l, g, l || g FROM unnest(ARRAY['en', 'a|b', 'c\\d', 'x\\|y']) l, "
           "generate_series(1, 50) g")
    db.sql("CREATE TABLE words (w text PRIMARY KEY, n int)")
    db.sql("INSERT INTO words SELECT 'w' || g || chr(233), g FROM generate_series(1, 100) g")
    db.sql("CREATE SCHEMA app; CREATE TABLE app.Things (id int PRIMARY KEY, v text); "
           "INSERT INTO app.Things VALUES (1, 'one')")
    rc, err = Feed(db, ["items", "pairs", "public.words", "app.things"], ["--to", server.url],
                   "--batch-size", "700").run_once()
    assert rc == 0, err
    assert_synced(db, "items", server.url)
    assert_synced(db, "pairs", server.url, keys=("lang", "n"))
    assert_synced(db, "words", server.url, keys=("w",))
    assert_synced(db, "app.things", server.url, index="app.things")
    # the mapping follows the column types
    m = requests.get(server.url + "/items/_mapping").json()["items"]["mappings"]["properties"]
    assert m["id"]["type"] == "long" and m["atz"]["type"] == "date" and m["raw"]["type"] == "binary"
    assert m["price"]["type"] == "keyword" and m["flag"]["type"] == "boolean" and m["ip"]["type"] == "ip"
    # domains as their base types, arrays of enums as arrays of keywords
    assert m["dm"]["type"] == "integer" and m["dms"]["type"] == "integer" and m["moods"]["type"] == "keyword"
    assert m["dmo"]["type"] == "keyword" and m["m"]["type"] == "keyword"
    d = requests.get(server.url + "/items/_doc/4").json()["_source"]
    assert d["dm"] == 5 and d["dms"] == [5, None] and d["moods"] == ["sad", None, "ok"] and d["dmo"] == "ok"
    # a composite key is joined with '|', each part escaping '\' and '|'
    d = requests.get(server.url + "/pairs/_doc/a\\|b|7").json()
    assert d["found"] and d["_source"]["word"] == "a|b7"


def test_stream_inserts_updates_deletes_and_transactions(db, server):
    db.sql("CREATE TABLE t (id int PRIMARY KEY, v text, n int)")
    db.sql("INSERT INTO t SELECT g, 'v' || g, g FROM generate_series(1, 500) g")
    feed = Feed(db, ["t"], ["--to", server.url], "--batch-size", "100").start()
    try:
        db.sql("INSERT INTO t SELECT g, 'new' || g, g FROM generate_series(501, 1500) g")
        db.sql("UPDATE t SET v = v || '!' WHERE id % 3 = 0")
        db.sql("DELETE FROM t WHERE id % 5 = 0")
        db.sql("UPDATE t SET id = id + 10000 WHERE id BETWEEN 10 AND 30")  # primary key changes
        db.sql("BEGIN; INSERT INTO t VALUES (-1, 'rolled back', 0); ROLLBACK")
        db.sql("BEGIN; INSERT INTO t VALUES (-2, 'kept', 0); SAVEPOINT s; INSERT INTO t VALUES (-3, 'undone', 0); "
               "UPDATE t SET v = 'undone' WHERE id = -2; ROLLBACK TO s; UPDATE t SET n = 42 WHERE id = -2; COMMIT")
        # larger than logical_decoding_work_mem (64kB): spilled by PostgreSQL
        db.sql("INSERT INTO t SELECT g, repeat('x', 200), g FROM generate_series(20000, 22000) g")
        db.sql("UPDATE t SET n = n + 1")
        wait_confirmed(db, db.wal_lsn(), url=server.url)
        assert_synced(db, "t", server.url)
        db.sql("TRUNCATE t")
        wait_confirmed(db, db.wal_lsn(), url=server.url)
        assert_synced(db, "t", server.url)
        db.sql("INSERT INTO t VALUES (1, 'a', 1); BEGIN; TRUNCATE t; INSERT INTO t VALUES (2, 'b', 2); COMMIT")
        wait_confirmed(db, db.wal_lsn(), url=server.url)
        assert_synced(db, "t", server.url)
        assert sorted(index_docs(server.url, "t")) == ["2"]
    finally:
        rc, err = feed.stop()
    assert rc == 0, err


def test_unchanged_toast_column_survives_an_update(db, server):
    db.sql("CREATE TABLE docs (id int PRIMARY KEY, body text, doc jsonb, n int)")
    # random text does not compress: stored out of line (TOAST)
    db.sql("INSERT INTO docs SELECT g, (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 700)), "
           "jsonb_build_object('big', (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 700))), g "
           "FROM generate_series(1, 5) g")
    assert db.sql("SELECT length(body) FROM docs WHERE id = 1")[0][0] >= 20000
    feed = Feed(db, ["docs"], ["--to", server.url]).start()
    try:
        db.sql("UPDATE docs SET n = n + 100")  # body and doc unchanged: not sent by PostgreSQL
        db.sql("UPDATE docs SET doc = '{\"small\": 1}' WHERE id = 2")  # an object column replaced whole
        wait_confirmed(db, db.wal_lsn(), url=server.url)
        assert_synced(db, "docs", server.url)
        assert index_docs(server.url, "docs")["2"]["doc"] == {"small": 1}
    finally:
        feed.stop()


def test_schema_changes_apply_to_the_next_rows(db, server):
    db.sql("CREATE TABLE s (id int PRIMARY KEY, a text)")
    db.sql("INSERT INTO s SELECT g, 'a' || g FROM generate_series(1, 50) g")
    feed = Feed(db, ["s"], ["--to", server.url]).start()
    try:
        db.sql("ALTER TABLE s ADD COLUMN born timestamptz DEFAULT '2024-01-01Z'")
        db.sql("INSERT INTO s VALUES (100, 'x', '2025-02-03 04:05:06Z')")
        db.sql("ALTER TABLE s ADD COLUMN price numeric(8, 2)")
        db.sql("UPDATE s SET price = id * 2.5")
        db.sql("ALTER TABLE s DROP COLUMN a")
        db.sql("UPDATE s SET price = price + 1 WHERE id > 40")
        # user types arriving mid-stream are resolved like the snapshot's
        db.sql("CREATE DOMAIN qty AS bigint CHECK (VALUE >= 0); CREATE TYPE size AS ENUM ('s', 'm', 'l')")
        db.sql("ALTER TABLE s ADD COLUMN q qty, ADD COLUMN sizes size[]")
        db.sql("UPDATE s SET q = id, sizes = '{s,l}' WHERE id < 5")
        wait_confirmed(db, db.wal_lsn(), url=server.url)
        assert_synced(db, "s", server.url)
        m = requests.get(server.url + "/s/_mapping").json()["s"]["mappings"]["properties"]
        assert m["born"]["type"] == "date" and m["price"]["type"] == "keyword"
        assert m["q"]["type"] == "long" and m["sizes"]["type"] == "keyword"
        assert index_docs(server.url, "s")["3"]["sizes"] == ["s", "l"]
    finally:
        feed.stop()


def test_a_table_without_a_key_is_refused(db, server):
    db.sql("CREATE TABLE nokey (a int, b text)")
    rc, err = Feed(db, ["nokey"], ["--to", server.url]).run_once()
    assert rc == 1
    assert "has no primary key" in err and "ADD PRIMARY KEY" in err and "REPLICA IDENTITY USING INDEX" in err
    rc, err = Feed(db, ["missing"], ["--to", server.url]).run_once()
    assert rc == 1 and "table public.missing does not exist" in err


def test_a_refused_row_is_a_dead_letter_and_the_stream_goes_on(db, server):
    db.sql("CREATE TABLE f (id int PRIMARY KEY, x double precision)")
    db.sql("INSERT INTO f VALUES (1, 1.5)")
    feed = Feed(db, ["f"], ["--to", server.url]).start()
    try:
        db.sql("INSERT INTO f VALUES (2, 'NaN')")  # a float field takes finite values only
        db.sql("INSERT INTO f VALUES (3, 3.5)")
        wait_confirmed(db, db.wal_lsn(), url=server.url)
        docs = index_docs(server.url, "f")
        assert sorted(docs) == ["1", "3"]
        dead = index_docs(server.url, ".trove_sync_dead_letters")
        assert len(dead) == 1
        (d,) = dead.values()
        assert d["table"] == "public.f" and d["id"] == "2" and d["reason"] and d["lsn"]
    finally:
        feed.stop()


def test_into_a_data_directory_in_process(db):
    db.sql("CREATE TABLE t (id int PRIMARY KEY, v text)")
    db.sql("INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 2000) g")
    with tempfile.TemporaryDirectory() as d:
        rc, err = Feed(db, ["t"], ["--data", d]).run_once()
        assert rc == 0, err
        db.sql("UPDATE t SET v = 'changed' WHERE id < 100; DELETE FROM t WHERE id > 1900")
        rc, err = Feed(db, ["t"], ["--data", d]).run_once()
        assert rc == 0, err
        s = Server("--data", d)
        try:
            assert_synced(db, "t", s.url)
            ck = requests.get(s.url + "/.trove_sync/_doc/" + db.name).json()["_source"]
            assert ck["snapshot_done"] is True and lsn_int(ck["lsn"]) <= lsn_int(db.wal_lsn())
        finally:
            s.stop()


def test_an_idle_slot_still_advances(db, server):
    db.sql("CREATE TABLE quiet (id int PRIMARY KEY); CREATE TABLE busy (id int)")
    feed = Feed(db, ["quiet"], ["--to", server.url]).start()
    try:
        wait_confirmed(db, db.wal_lsn(), url=server.url)
        db.sql("INSERT INTO busy SELECT generate_series(1, 10000)")  # WAL of a table not fed
        wait_confirmed(db, db.wal_lsn(), url=server.url)
    finally:
        feed.stop()


def test_postgres_restarted_while_streaming(pg, db, server):
    db.sql("CREATE TABLE t (id int PRIMARY KEY, v int)")
    feed = Feed(db, ["t"], ["--to", server.url]).start()
    try:
        db.sql("INSERT INTO t SELECT g, g FROM generate_series(1, 1000) g")
        db.conn.close()
        pg.restart()
        db.conn = pg.connect(db.name)
        db.sql("UPDATE t SET v = -v WHERE id % 2 = 0; INSERT INTO t VALUES (5000, 5)")
        wait_confirmed(db, db.wal_lsn(), timeout=60, url=server.url)
        assert_synced(db, "t", server.url)
    finally:
        feed.stop()


def test_drop_removes_slot_publication_and_checkpoint(db, server):
    db.sql("CREATE TABLE t (id int PRIMARY KEY)")
    rc, err = Feed(db, ["t"], ["--to", server.url]).run_once()
    assert rc == 0, err
    assert db.slot() is not None
    p = subprocess.run([Feed(db, [], []).argv[0], "sync", "drop", "--pg", db.conninfo, "--slot", db.name, "--to",
                        server.url],
                       stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 0, p.stderr
    assert db.slot() is None
    assert db.sql("SELECT count(*) FROM pg_publication")[0][0] == 0
    assert requests.get(server.url + "/.trove_sync/_doc/" + db.name).status_code == 404


def workload(db_conninfo, stop, seed):
    """Random inserts, updates (some of the key), deletes and truncates of t
    until stop is set."""
    import psycopg2
    rnd = random.Random(seed)
    c = psycopg2.connect(db_conninfo)
    c.autocommit = False
    cur = c.cursor()
    while not stop.is_set():
        if rnd.random() < 0.03:
            # past logical_decoding_work_mem: streamed while it runs, with a
            # savepoint rolled back inside
            k = rnd.randint(200000, 210000)
            cur.execute("INSERT INTO t SELECT g, repeat('L', 200), 0 FROM generate_series(%s, %s) g "
                        "ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v", (k, k + 1500))
            cur.execute("SAVEPOINT s")
            cur.execute("UPDATE t SET n = -1 WHERE id BETWEEN %s AND %s", (k, k + 800))
            cur.execute("ROLLBACK TO SAVEPOINT s")
            cur.execute("UPDATE t SET n = n + 1 WHERE id BETWEEN %s AND %s", (k, k + 700))
        for _ in range(rnd.randint(1, 20)):
            op = rnd.random()
            k = rnd.randint(1, 3000)
            if op < 0.5:
                cur.execute("INSERT INTO t VALUES (%s, %s, %s) ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v",
                            (k, "w%d" % rnd.randint(0, 10 ** 6), rnd.randint(0, 100)))
            elif op < 0.75:
                cur.execute("UPDATE t SET n = n + 1 WHERE id BETWEEN %s AND %s", (k, k + 20))
            elif op < 0.8:
                cur.execute("UPDATE t SET id = id + 100000 WHERE id = %s AND NOT EXISTS "
                            "(SELECT 1 FROM t WHERE id = %s)", (k, k + 100000))
            elif op < 0.999:
                cur.execute("DELETE FROM t WHERE id BETWEEN %s AND %s", (k, k + 5))
            else:
                cur.execute("TRUNCATE t")
        if rnd.random() < 0.1:
            c.rollback()
        else:
            c.commit()
    c.close()


@pytest.mark.parametrize("trials", [int(os.environ.get("TROVE_SYNC_KILLS", "20"))])
def test_kill_9_at_random_points_loses_and_duplicates_nothing(db, server, trials):
    db.sql("CREATE TABLE t (id int PRIMARY KEY, v text, n int)")
    db.sql("INSERT INTO t SELECT g, 'v' || g, g % 100 FROM generate_series(1, 20000) g")
    rnd = random.Random(7)
    stop = threading.Event()
    w = threading.Thread(target=workload, args=(db.conninfo, stop, 11))
    w.start()
    try:
        for i in range(trials):
            # small batches so that a kill lands mid-snapshot and mid-batch
            feed = Feed(db, ["t"], ["--to", server.url], "--batch-size", str(rnd.choice([50, 300, 2000])),
                        "--in-flight", rnd.choice("01")).start()
            time.sleep(rnd.uniform(0.05, 1.5))
            feed.kill()
    finally:
        stop.set()
        w.join()
    rc, err = Feed(db, ["t"], ["--to", server.url]).run_once()
    assert rc == 0, err
    assert_synced(db, "t", server.url)


def test_verify_reports_every_difference(db, server):
    db.sql(TYPES_TABLE)
    db.sql("CREATE TABLE pairs (lang text, n int, word text, PRIMARY KEY (lang, n))")
    db.sql("INSERT INTO pairs SELECT l, g, l || g FROM unnest(ARRAY['en', 'a|b', 'c\\d']) l, generate_series(1, 20) g")
    rc, err = Feed(db, ["items", "pairs"], ["--to", server.url]).run_once()
    assert rc == 0, err
    verify = [Feed(db, [], []).argv[0], "sync", "verify", "--pg", db.conninfo, "--tables", "items,pairs", "--to",
              server.url]
    p = subprocess.run(verify, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().splitlines() == ["public.items -> items: 3001 documents, 0 differences",
                                              "public.pairs -> pairs: 60 documents, 0 differences"]
    # an index that drifted: a changed value, a lost document, a stray one
    requests.post(server.url + "/items/_update/5?refresh=true", json={"doc": {"price": "9.99"}}).raise_for_status()
    requests.delete(server.url + "/pairs/_doc/a\\|b|3?refresh=true").raise_for_status()
    requests.put(server.url + "/pairs/_doc/zz|1?refresh=true", json={"lang": "zz", "n": 1}).raise_for_status()
    p = subprocess.run(verify, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert p.returncode == 1, p.stderr
    assert p.stdout.decode().splitlines() == ["public.items -> items: 3001 documents, 1 difference",
                                              "  different: [5]",
                                              "public.pairs -> pairs: 60 documents, 2 differences",
                                              "  missing from the index: [a\\|b|3]",
                                              "  not in the table: [zz|1]"]


def test_status_shows_slot_checkpoint_lag_and_dead_letters(db, server):
    db.sql("CREATE TABLE f (id int PRIMARY KEY, x double precision)")
    db.sql("INSERT INTO f VALUES (1, 1.5), (2, 'NaN')")
    rc, err = Feed(db, ["f"], ["--to", server.url]).run_once()
    assert rc == 0, err
    db.sql("INSERT INTO f SELECT g, g FROM generate_series(10, 5000) g")  # WAL the stopped feed has not read
    status = [Feed(db, [], []).argv[0], "sync", "status", "--pg", db.conninfo, "--slot", db.name, "--tables", "f",
              "--to", server.url]
    p = subprocess.run(status + ["--warn-wal", "1kb"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode().splitlines()
    assert out[0].startswith("slot %s: inactive (no feeder attached), confirmed " % db.name), out
    ck = requests.get(server.url + "/.trove_sync/_doc/" + db.name).json()["_source"]
    behind = lsn_int(db.wal_lsn()) - lsn_int(ck["lsn"])
    assert out[1].startswith("checkpoint: %s, " % ck["lsn"]) and "snapshot done" in out[1], out
    assert int(out[1].split(", ")[1].split()[0]) > 0 and int(out[1].split(", ")[1].split()[0]) <= behind
    assert out[2] == "dead letters: 1 (in .trove_sync_dead_letters)"
    assert "WARNING: slot %s retains" % db.name in p.stderr.decode()
    p = subprocess.run(status, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 0 and b"WARNING" not in p.stderr  # under the 1gb default
    p = subprocess.run(status[:6] + ["nope"] + status[7:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 1 and p.stdout.decode().startswith("slot nope: none")


def test_serve_runs_the_feed_of_a_config_file(db):
    db.sql("CREATE TABLE t (id int PRIMARY KEY, v text)")
    db.sql("INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 3000) g")
    with tempfile.TemporaryDirectory() as d:
        cfg = os.path.join(d, "sync.json")
        with open(cfg, "w") as f:
            json.dump({"pg": db.conninfo, "tables": ["t"], "slot": db.name, "publication": db.name,
                       "batch_size": 500}, f)
        data = os.path.join(d, "data")

        def feeds(url):
            return requests.get(url + "/_trove/sync").json()["feeds"]

        for round_ in range(2):  # the second start goes on from the checkpoint
            s = Server("--data", data, "--sync", cfg)
            try:
                deadline = time.monotonic() + 30
                while feeds(s.url)[0]["state"] != "streaming":
                    assert time.monotonic() < deadline, feeds(s.url)
                    time.sleep(0.05)
                db.sql("UPDATE t SET v = v || '+' WHERE id %% 7 = %s" % round_)
                db.sql("INSERT INTO t VALUES (%s, 'new')" % (10000 + round_))
                wait_confirmed(db, db.wal_lsn(), url=s.url)
                assert_synced(db, "t", s.url)
                (fd,) = feeds(s.url)
                assert fd["slot"] == db.name and fd["tables"] == ["t"] and fd["last_error"] is None
                assert fd["dead_letters"] == 0 and lsn_int(fd["checkpoint_lsn"]) > 0
                assert fd["lag_millis"] is not None and 0 <= fd["lag_millis"] < 60000, fd
                if round_ == 0:
                    assert fd["rows"] >= 3000
            finally:
                s.stop()
            assert s.proc.returncode == 0
    # a bad config is refused at start, naming the key
    with tempfile.TemporaryDirectory() as d:
        cfg = os.path.join(d, "bad.json")
        with open(cfg, "w") as f:
            json.dump({"pg": db.conninfo, "tables": ["t"], "slots": "x"}, f)
        p = subprocess.run([Feed(db, [], []).argv[0], "serve", "--port", "0", "--data", os.path.join(d, "x"),
                            "--sync", cfg], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30)
        assert p.returncode == 1 and b"unknown key slots" in p.stderr
    # a feed that cannot run says why in GET /_trove/sync
    with tempfile.TemporaryDirectory() as d:
        cfg = os.path.join(d, "nope.json")
        with open(cfg, "w") as f:
            json.dump({"pg": db.conninfo, "tables": ["nope"], "slot": db.name + "_nope"}, f)
        s = Server("--data", os.path.join(d, "data"), "--sync", cfg)
        try:
            deadline = time.monotonic() + 30
            while feeds(s.url)[0]["state"] != "failed":
                assert time.monotonic() < deadline, feeds(s.url)
                time.sleep(0.05)
            assert feeds(s.url)[0]["last_error"] == "table public.nope does not exist"
        finally:
            s.stop()


def config_feed(db, cfg_dir, tables, *extra):
    """A feed of a config file holding `tables` (names or objects)."""
    cfg = os.path.join(cfg_dir, "feed-%d.json" % random.randrange(1 << 30))
    with open(cfg, "w") as f:
        json.dump({"pg": db.conninfo, "tables": tables, "slot": db.name, "publication": db.name}, f)
    return [Feed(db, [], []).argv[0], "sync", *extra, "--config", cfg]


def projected(db, table, key, exclude=(), include=None, rename=None):
    """{_id: the document the config asks for}, from PostgreSQL's to_jsonb."""
    out = {}
    for k, row in db.sql("SELECT %s, to_jsonb(trove_row) FROM %s trove_row" % (key, table)):
        doc = {(rename or {}).get(c, c): v for c, v in row.items()
               if c not in exclude and (include is None or c in include)}
        out[k] = doc
    return out


def test_per_table_config_index_id_fields_renames_and_mappings(db, server, tmp_path):
    db.sql("CREATE TABLE products (id int PRIMARY KEY, sku text NOT NULL UNIQUE, title text, secret text, "
           "body jsonb, n int)")
    db.sql("ALTER TABLE products REPLICA IDENTITY USING INDEX products_sku_key")
    db.sql("INSERT INTO products SELECT g, 'sku-' || g, 'Red shoe ' || g, 'hidden', "
           "jsonb_build_object('g', g), g FROM generate_series(1, 300) g")
    # no primary key: REPLICA IDENTITY FULL and an _id of a unique index's columns
    db.sql("CREATE TABLE notes (n int NOT NULL, lang text NOT NULL, body text, internal text)")
    db.sql("CREATE UNIQUE INDEX notes_key ON notes (n, lang)")
    db.sql("ALTER TABLE notes REPLICA IDENTITY FULL")
    db.sql("INSERT INTO notes SELECT g, l, l || g, 'x' FROM generate_series(1, 40) g, unnest(ARRAY['en', 'd|e']) l")
    tables = [{"table": "products", "index": "catalog", "id": ["sku"], "exclude": ["secret"],
               "rename": {"title": "name"}, "settings": {"number_of_shards": 2},
               "mappings": {"name": {"type": "text", "fields": {"raw": {"type": "keyword"}}}}},
              {"table": "public.notes", "id": ["lang", "n"], "include": ["lang", "body"]}]
    argv = config_feed(db, tmp_path, tables, "--to", server.url, "--quiet")
    p = subprocess.run(argv + ["--once"], stderr=subprocess.PIPE, timeout=120)
    assert p.returncode == 0, p.stderr

    def nonull(docs):  # a column added later is absent from older documents: both mean NULL
        return {k: {f: v for f, v in d.items() if v is not None} for k, d in docs.items()}

    def check():
        assert nonull(index_docs(server.url, "catalog")) == nonull(projected(
            db, "products", "sku", exclude=("secret",), rename={"title": "name"}))
        assert index_docs(server.url, "notes") == projected(
            db, "notes", "replace(replace(lang, '\\', '\\\\'), '|', '\\|') || '|' || n", include=("lang", "body"))

    check()
    assert "products" not in requests.get(server.url + "/_cat/indices?h=index").text.split()
    idx = requests.get(server.url + "/catalog").json()["catalog"]
    assert idx["settings"]["index"]["number_of_shards"] == "2"
    props = idx["mappings"]["properties"]
    assert props["name"] == {"type": "text", "fields": {"raw": {"type": "keyword"}}} and "secret" not in props
    assert props["id"] == {"type": "integer"} and "title" not in props
    hits = requests.post(server.url + "/catalog/_search",
                         json={"query": {"term": {"name.raw": "Red shoe 7"}}}).json()["hits"]["hits"]
    assert [h["_id"] for h in hits] == ["sku-7"]

    # the stream under the same rules: an _id change deletes the old
    # document; a column added later is a field unless "include" is given
    feed = subprocess.Popen(argv, stderr=subprocess.PIPE)
    try:
        db.sql("UPDATE products SET sku = 'moved-' || id WHERE id <= 10")
        db.sql("UPDATE products SET title = 'Blue hat', secret = 'still hidden' WHERE id BETWEEN 11 AND 20")
        db.sql("DELETE FROM products WHERE id BETWEEN 21 AND 25")
        db.sql("ALTER TABLE products ADD COLUMN colour text")
        db.sql("INSERT INTO products (id, sku, title, colour) VALUES (1000, 'new', 'New', 'green')")
        db.sql("UPDATE notes SET n = n + 100 WHERE n <= 5")
        db.sql("DELETE FROM notes WHERE n = 6")
        db.sql("ALTER TABLE notes ADD COLUMN extra text")
        db.sql("INSERT INTO notes VALUES (999, 'en', 'late', 'x', 'not indexed')")
        wait_confirmed(db, db.wal_lsn())
        check()
        assert "sku-3" not in index_docs(server.url, "catalog")
        assert index_docs(server.url, "catalog")["new"]["colour"] == "green"
    finally:
        feed.terminate()
        assert feed.wait(timeout=30) == 0

    # verify applies the same rules, and finds a drifted field by its column
    verify = config_feed(db, tmp_path, tables, "verify", "--to", server.url)
    p = subprocess.run(verify, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().splitlines() == ["public.products -> catalog: 296 documents, 0 differences",
                                              "public.notes -> notes: 79 documents, 0 differences"]
    requests.post(server.url + "/catalog/_update/sku-50?refresh=true",
                  json={"doc": {"name": "drifted"}}).raise_for_status()
    p = subprocess.run(verify, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert p.returncode == 1 and p.stdout.decode().splitlines()[:2] == [
        "public.products -> catalog: 296 documents, 1 difference", "  different: [sku-50]"], p.stdout


@pytest.mark.parametrize("table,why", [
    ({"table": "p", "id": ["title"]}, "its \"id\" columns are not unique"),
    ({"table": "p", "id": ["code"]}, "REPLICA IDENTITY USING INDEX p_code_key"),
    ({"table": "p", "id": ["maybe"]}, "the \"id\" column [maybe] can be NULL"),
    ({"table": "p", "id": ["nope"]}, "\"id\" names [nope], which is not a column"),
    ({"table": "p", "include": ["id", "nope"]}, "\"include\" names [nope], which is not a column"),
    ({"table": "p", "exclude": ["title"], "rename": {"title": "t"}}, "\"rename\" names [title], which is not indexed"),
    ({"table": "p", "rename": {"title": "code"}}, "two columns become the field [code]"),
    ({"table": "p", "mappings": {"nope": {"type": "text"}}}, "\"mappings\" names [nope], which is not a field"),
    ({"table": "f"}, "has REPLICA IDENTITY FULL but no primary key"),
])
def test_a_config_the_catalog_contradicts_is_refused(db, server, tmp_path, table, why):
    db.sql("CREATE TABLE p (id int PRIMARY KEY, code text NOT NULL UNIQUE, title text NOT NULL, maybe text UNIQUE)")
    db.sql("CREATE TABLE f (a int); ALTER TABLE f REPLICA IDENTITY FULL")
    p = subprocess.run(config_feed(db, tmp_path, [table], "--to", server.url, "--once"), stderr=subprocess.PIPE,
                       timeout=60)
    assert p.returncode == 1 and why in p.stderr.decode(), p.stderr


@pytest.mark.parametrize("tables,why", [
    ([{"table": "p", "colour": 1}], "unknown key tables[].colour"),
    ([{"index": "x"}], "needs tables[].table"),
    ([{"table": "p", "id": []}], "needs an array of column names at tables[].id"),
    ([{"table": "p", "include": ["a"], "exclude": ["b"]}], "takes include or exclude, not both"),
    ([{"table": "p", "rename": {"a": 1}}], "needs a non-empty field name at tables[].rename.a"),
    ([{"table": "p", "mappings": {"a": "text"}}], "needs a mapping object at tables[].mappings.a"),
    ([{"table": "p", "index": "same"}, {"table": "q", "index": "same"}], "both feed the index [same]"),
])
def test_a_malformed_table_config_is_refused(db, server, tmp_path, tables, why):
    db.sql("CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE q (id int PRIMARY KEY)")
    p = subprocess.run(config_feed(db, tmp_path, tables, "--to", server.url, "--once"), stderr=subprocess.PIPE,
                       timeout=60)
    assert p.returncode != 0 and why in p.stderr.decode(), p.stderr


def test_large_transactions_stream_while_they_run(db, server):
    """Protocol 2: transactions past logical_decoding_work_mem (64kB here)
    arrive in blocks while they run, interleaved, and are written only at
    their commit; an abort, or a rolled-back savepoint, writes nothing."""
    db.sql("CREATE TABLE big (id int PRIMARY KEY, v text)")
    db.sql("INSERT INTO big VALUES (0, 'before')")
    feed = Feed(db, ["big"], ["--to", server.url], "--batch-size", "500").start()
    conns = [db.pg.connect(db.name) for _ in range(3)]
    try:
        wait_confirmed(db, db.wal_lsn(), feed=feed, url=server.url)
        c1, c2, c3 = [c.cursor() for c in conns]
        ins = "INSERT INTO big SELECT g, repeat('x', 100) FROM generate_series(%s, %s) g"
        c1.execute("BEGIN")
        c1.execute(ins, (1, 3000))
        c1.execute("SAVEPOINT a")
        c1.execute(ins, (3001, 6000))
        c1.execute("SAVEPOINT b")
        c1.execute("UPDATE big SET v = 'undone' WHERE id BETWEEN 1 AND 1000")
        c2.execute("BEGIN")
        c2.execute(ins, (10001, 13000))
        c1.execute("ROLLBACK TO SAVEPOINT a")  # 3001..6000 and the update are gone
        c1.execute("UPDATE big SET v = 'kept' WHERE id % 2 = 0 AND id > 0")
        c3.execute("BEGIN")
        c3.execute(ins, (20001, 23000))
        c1.execute(ins, (6001, 8000))
        c2.execute("ROLLBACK")  # a whole streamed transaction aborted
        c3.execute("DELETE FROM big WHERE id = 0")
        c1.execute("COMMIT")
        c3.execute("COMMIT")
        wait_confirmed(db, db.wal_lsn(), feed=feed, url=server.url)
        assert_synced(db, "big", server.url)
        docs = index_docs(server.url, "big")
        assert len(docs) == 8000 and "3001" not in docs and "10001" not in docs and "0" not in docs
        assert docs["2"]["v"] == "kept" and docs["1"]["v"] == "x" * 100
        deadline = time.monotonic() + 15
        while True:  # the slot's statistics arrive a little later
            (streamed,) = db.sql("SELECT stream_txns FROM pg_stat_replication_slots WHERE slot_name = %s", db.name)[0]
            if streamed >= 3 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert streamed >= 3, "PostgreSQL streamed %s transactions" % streamed
    finally:
        for c in conns:
            c.close()
        rc, err = feed.stop()
    assert rc == 0, err


def test_flush_interval_holds_a_partial_batch(db, server):
    db.sql("CREATE TABLE q (id int PRIMARY KEY, v text)")
    feed = Feed(db, ["q"], ["--to", server.url], "--flush-interval", "3s", "--batch-size", "100000").start()
    try:
        wait_confirmed(db, db.wal_lsn(), feed=feed, url=server.url)
        db.sql("INSERT INTO q VALUES (1, 'one')")
        t0 = time.monotonic()
        time.sleep(1)
        assert requests.get(server.url + "/q/_doc/1").json()["found"] is False  # waiting for more rows
        wait_confirmed(db, db.wal_lsn(), feed=feed, url=server.url)
        assert time.monotonic() - t0 >= 2.5
        assert requests.get(server.url + "/q/_doc/1").json()["found"] is True
    finally:
        rc, err = feed.stop()
    assert rc == 0, err
    p = subprocess.run(Feed(db, ["q"], ["--to", server.url], "--flush-interval", "soon").argv, stderr=subprocess.PIPE,
                       timeout=30)
    assert p.returncode == 2 and b"--flush-interval takes a time" in p.stderr
