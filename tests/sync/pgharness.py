"""A throwaway PostgreSQL 15 and the exact oracle of `trove sync` tests.

Cluster: initdb as the `postgres` user (initdb refuses root) in a temporary
directory it owns, listening on a Unix socket there only, wal_level=logical,
logical_decoding_work_mem at its minimum (64kB) so that ordinary test
transactions already spill to disk. Every test gets a database of its own.

Oracle (`assert_synced`): PostgreSQL itself reads each document back into the
table's row type (jsonb_populate_record) and the md5 of that row's text must
equal the md5 of the table's row, for every key; no extra document, no
missing one. The only transform before that is bytea: the index holds base64
(the binary field's form), PostgreSQL's record input wants \\x hex.
"""
import base64
import json
import os
import pathlib
import pwd
import shutil
import signal
import subprocess
import tempfile
import time

import psycopg2
import psycopg2.extras
import requests

PG_BIN = pathlib.Path("/usr/lib/postgresql/15/bin")
ROOT = pathlib.Path(__file__).resolve().parents[2]


def trove_bin():
    b = os.environ.get("TROVE_BIN", str(ROOT / "build" / "trove"))
    return b if os.path.isabs(b) else str(ROOT / b)


class Postgres:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="trove-pg-")
        pw = pwd.getpwnam("postgres")
        os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self.data = os.path.join(self.dir, "data")
        self._as_postgres([str(PG_BIN / "initdb"), "-D", self.data, "-A", "trust", "-U", "postgres", "-E", "UTF8",
                           "--locale=C.UTF-8"])
        self.start()

    def _as_postgres(self, argv, **kw):
        return subprocess.run(["runuser", "-u", "postgres", "--"] + argv, check=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=120, **kw)

    def start(self):
        opts = ("-k %s -c listen_addresses='' -c wal_level=logical -c max_replication_slots=20 "
                "-c max_wal_senders=20 -c logical_decoding_work_mem=64kB -c fsync=off "
                "-c wal_sender_timeout=60s" % self.dir)
        self._as_postgres([str(PG_BIN / "pg_ctl"), "-D", self.data, "-o", opts, "-l",
                           os.path.join(self.dir, "log"), "-w", "start"])

    def stop(self, mode="fast"):
        self._as_postgres([str(PG_BIN / "pg_ctl"), "-D", self.data, "-m", mode, "-w", "stop"])

    def restart(self):
        self.stop()
        self.start()

    def destroy(self):
        try:
            self.stop("immediate")
        except Exception:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)

    def conninfo(self, db):
        return "host=%s user=postgres dbname=%s" % (self.dir, db)

    def connect(self, db="postgres"):
        c = psycopg2.connect(host=self.dir, user="postgres", dbname=db)
        c.autocommit = True
        return c

    def create_db(self, name):
        c = self.connect()
        try:
            c.cursor().execute('CREATE DATABASE "%s"' % name)
        finally:
            c.close()


class Db:
    """One test's database: run SQL, read rows."""

    def __init__(self, pg, name):
        pg.create_db(name)
        self.pg = pg
        self.name = name
        self.conninfo = pg.conninfo(name)
        self.conn = pg.connect(name)

    def sql(self, q, *args):
        with self.conn.cursor() as cur:
            cur.execute(q, args or None)
            return cur.fetchall() if cur.description else None

    def slot(self):
        r = self.sql("SELECT confirmed_flush_lsn::text, active FROM pg_replication_slots WHERE slot_name = %s",
                     self.name)
        return r[0] if r else None

    def wal_lsn(self):
        return self.sql("SELECT pg_current_wal_lsn()::text")[0][0]


def lsn_int(s):
    hi, lo = s.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)


class Feed:
    """A `trove sync` process."""

    def __init__(self, db, tables, dest, *extra):
        # a slot is the cluster's, a publication the database's: one slot per test database
        self.argv = [trove_bin(), "sync", "--pg", db.conninfo, "--tables", ",".join(tables), "--quiet",
                     "--slot", db.name] + list(dest) + list(extra)
        self.proc = None

    def run_once(self, timeout=300):
        p = subprocess.run(self.argv + ["--once"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stderr.decode(errors="replace")

    def start(self):
        # stderr to a file: a pipe nobody reads would stop the feed once full
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=self.err)
        return self

    def log(self):
        self.err.seek(0)
        return self.err.read().decode(errors="replace")

    def kill(self):
        self.proc.kill()
        self.proc.wait()
        self.err.close()

    def stop(self, timeout=30):
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=timeout)
        err = self.log()
        self.err.close()
        return rc, err


def index_docs(url, index):
    """Every document of an index: {_id: _source} (refreshes first)."""
    requests.post("%s/%s/_refresh" % (url, index)).raise_for_status()
    r = requests.post("%s/%s/_search?scroll=1m" % (url, index),
                      json={"size": 1000, "sort": ["_doc"], "query": {"match_all": {}}})
    r.raise_for_status()
    out = {}
    while True:
        body = r.json()
        hits = body["hits"]["hits"]
        if not hits:
            break
        for h in hits:
            assert h["_id"] not in out, "duplicate _id %s" % h["_id"]
            out[h["_id"]] = h["_source"]
        r = requests.post("%s/_search/scroll" % url, json={"scroll": "1m", "scroll_id": body["_scroll_id"]})
        r.raise_for_status()
    return out


def doc_id(parts):
    if len(parts) == 1:
        return parts[0]
    return "|".join(p.replace("\\", "\\\\").replace("|", "\\|") for p in parts)


def assert_synced(db, table, url, index=None, keys=("id",)):
    """The index equals the table: same keys, and each document read back
    into the row type by PostgreSQL has the row's md5."""
    index = index or table.split(".")[-1].lower()
    docs = index_docs(url, index)
    cols = db.sql("SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
                  "WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum", table)
    byteas = [c for c, t in cols if t == "bytea"]
    keysql = ", ".join('"%s"::text' % k for k in keys)
    rows = db.sql('SELECT %s, md5(trove_row::text) FROM %s trove_row' % (keysql, table))
    want = {doc_id(list(r[:-1])): r[-1] for r in rows}
    missing = sorted(set(want) - set(docs))[:10]
    extra = sorted(set(docs) - set(want))[:10]
    assert not missing and not extra, "missing %s, extra %s (of %d rows, %d docs)" % (missing, extra, len(want),
                                                                                    len(docs))
    if not docs:
        return
    for src in docs.values():
        for b in byteas:
            if isinstance(src.get(b), str):
                src[b] = "\\x" + base64.b64decode(src[b]).hex()
            elif isinstance(src.get(b), list):
                src[b] = [None if v is None else "\\x" + base64.b64decode(v).hex() for v in src[b]]
    db.sql("DROP TABLE IF EXISTS trove_oracle")
    db.sql("CREATE TEMP TABLE trove_oracle (id text, doc jsonb)")
    with db.conn.cursor() as cur:
        psycopg2.extras.execute_values(cur, "INSERT INTO trove_oracle VALUES %s",
                                       [(k, json.dumps(v)) for k, v in docs.items()], page_size=1000)
    got = dict(db.sql("SELECT o.id, md5(jsonb_populate_record(NULL::%s, o.doc)::text) FROM trove_oracle o" % table))
    bad = [k for k in want if got.get(k) != want[k]]
    if bad:
        k = bad[0]
        row = db.sql("SELECT trove_row::text FROM %s trove_row WHERE md5(trove_row::text) = %%s" % table, want[k])
        back = db.sql("SELECT jsonb_populate_record(NULL::%s, o.doc)::text FROM trove_oracle o WHERE o.id = %%s" % table,
                      k)
        raise AssertionError("%d of %d documents differ; first [%s]:\n row  %s\n doc  %s\n json %s" % (
            len(bad), len(want), k, row, back, json.dumps(docs[k])[:500]))
