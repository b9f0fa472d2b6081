"""Debian's python3-elasticsearch (the Elasticsearch 7.x Python client) against
`trove serve`.

What a user of a legacy 7.x client meets, step by step:

1. By default trove's `GET /` is OpenSearch 3's (distribution "opensearch",
   version 3.x). Every 7.x client from 7.14 on checks the product before its
   first request and refuses: `UnsupportedProductError`, and nothing reaches
   the server.
2. OpenSearch 1.x/2.x had `compatibility.override_main_response_version`
   (`GET /` then reported 7.10.2, still with OpenSearch's tagline, which a
   7.14+ client refuses anyway). OpenSearch 3.0 removed the setting; trove
   answers as OpenSearch 3 does: 400, unknown setting.
3. With the product check declared passed by the application (a Transport
   subclass handed to the client's public `transport_class` parameter: what
   teams on 7.14+ clients against OpenSearch do), the client's own request
   shapes run a workflow: create an index with a mapping, index, helpers.bulk,
   refresh, search (match, bool, sort, from/size), count, get, mget, delete,
   helpers.scan (scroll + clear_scroll) and the client's NotFoundError. Every
   step asserts exact values. Once the check is skipped the client never reads
   `GET /` again, so this runs with or without the compatibility setting; it
   does not depend on it, so that a missing setting does not hide the rest.

Rejected: pip's opensearch-py (not a Debian package, and the node test already
covers an official OpenSearch client); faking Elasticsearch's tagline in trove
(OpenSearch never did; that is a product decision, not a test's).
"""
import elasticsearch
import pytest
from elasticsearch import Elasticsearch, Transport, helpers
from elasticsearch.exceptions import NotFoundError, RequestError, UnsupportedProductError

OPENSEARCH_TAGLINE = "The OpenSearch Project: https://opensearch.org/"
UNKNOWN_PRODUCT = ("The client noticed that the server is not Elasticsearch "
                   "and we do not support this unknown product")
COMPAT = "compatibility.override_main_response_version"

N = 600
CATEGORIES = ["books", "music", "garden", "toys", "tools", "food"]
ANIMALS = ["fox", "dog", "cat", "owl", "bee"]


def make_doc(i):
    return {
        "title": "quick %s %s" % (["red", "green", "blue"][i % 3], ANIMALS[i % 5]),
        "category": CATEGORIES[i % 6],
        "price": i,
        "rank": (i * 7919) % N,  # a permutation of 0..N-1 (7919 is prime, coprime to 600)
        "in_stock": i % 2 == 0,
    }


DOCS = [make_doc(i) for i in range(N)]


def ids_where(pred):
    return [str(i) for i, d in enumerate(DOCS) if pred(d)]


def hit_ids(resp):
    return [h["_id"] for h in resp["hits"]["hits"]]


class ProductCheckAccepted(Transport):
    """The application vouches for the server: the 7.x client's Elasticsearch
    product check is skipped, every other part of the transport is the client's."""

    def _do_verify_elasticsearch(self, headers, timeout):
        self._verified_elasticsearch = True


def test_installed_client_is_a_7x_with_product_check():
    assert elasticsearch.VERSION[0] == 7
    assert elasticsearch.VERSION >= (7, 14, 0), elasticsearch.__versionstr__


def test_default_main_response_is_opensearch_3(trove):
    status, headers, body = trove.request("GET", "/")
    assert status == 200
    assert body["version"]["distribution"] == "opensearch"
    assert body["version"]["number"].startswith("3.")
    assert body["tagline"] == OPENSEARCH_TAGLINE
    assert "x-elastic-product" not in {k.lower() for k in headers}


def test_client_refuses_opensearch_3(trove):
    es = Elasticsearch([trove.url], max_retries=0, timeout=10)
    with pytest.raises(UnsupportedProductError) as e:
        es.info()
    assert str(e.value) == UNKNOWN_PRODUCT
    # the verdict sticks, and no request after GET / reaches the server
    with pytest.raises(UnsupportedProductError):
        es.index(index="refused", id="1", document={"a": 1})
    status, _, body = trove.request("GET", "/refused")
    assert status == 404, body
    assert body["error"]["type"] == "index_not_found_exception"


def test_compat_setting_is_gone_in_opensearch_3(trove):
    # OpenSearch 3.0 removed compatibility.override_main_response_version
    # (opensearch-project/OpenSearch#18228): the cluster settings API refuses it
    # as an unknown setting, and trove answers the same, so a 7.x client cannot
    # be talked past the product check by the server.
    status, _, body = trove.request("PUT", "/_cluster/settings", {"persistent": {COMPAT: True}})
    assert status == 400, body
    assert body["error"]["type"] == "illegal_argument_exception"
    assert body["error"]["reason"] == "persistent setting [%s], not recognized" % COMPAT
    status, _, body = trove.request("GET", "/")
    assert body["version"]["distribution"] == "opensearch"
    assert body["version"]["number"].startswith("3.")


def test_workflow_with_product_check_accepted(trove):
    es = Elasticsearch([trove.url], transport_class=ProductCheckAccepted, max_retries=0, timeout=10)

    info = es.info()
    assert info["tagline"] == OPENSEARCH_TAGLINE

    # create an index with a mapping
    created = es.indices.create(
        index="shop",
        settings={"number_of_shards": 1, "number_of_replicas": 0},
        mappings={"properties": {
            "title": {"type": "text"}, "category": {"type": "keyword"},
            "price": {"type": "integer"}, "rank": {"type": "integer"},
            "in_stock": {"type": "boolean"}}})
    assert created == {"acknowledged": True, "shards_acknowledged": True, "index": "shop"}
    with pytest.raises(RequestError) as e:
        es.indices.create(index="shop")
    assert e.value.status_code == 400
    assert e.value.error == "resource_already_exists_exception"

    # index one document, bulk the rest
    r = es.index(index="shop", id="0", document=DOCS[0])
    assert (r["result"], r["_version"], r["_id"]) == ("created", 1, "0")
    ok, errors = helpers.bulk(es, ({"_index": "shop", "_id": str(i), "_source": DOCS[i]}
                                   for i in range(1, N)), chunk_size=200)
    assert (ok, errors) == (N - 1, [])
    es.indices.refresh(index="shop")

    # count
    assert es.count(index="shop")["count"] == N
    books = ids_where(lambda d: d["category"] == "books")
    assert es.count(index="shop", body={"query": {"term": {"category": "books"}}})["count"] == len(books)

    # search: match
    r = es.search(index="shop", query={"match": {"title": "owl"}}, size=3)
    owls = ids_where(lambda d: d["title"].endswith(" owl"))
    assert r["hits"]["total"] == {"value": len(owls), "relation": "eq"}
    assert len(r["hits"]["hits"]) == 3
    assert all(h["_source"]["title"].endswith(" owl") for h in r["hits"]["hits"])

    # search: bool with sort and from/size
    query = {"bool": {
        "must": [{"match": {"title": "fox"}}],
        "filter": [{"range": {"price": {"gte": 100, "lt": 400}}}],
        "must_not": [{"term": {"in_stock": False}}],
        "should": [{"term": {"category": "books"}}]}}
    expected = ids_where(lambda d: d["title"].endswith(" fox") and 100 <= d["price"] < 400 and d["in_stock"])
    r = es.search(index="shop", query=query, sort=[{"price": "desc"}], from_=5, size=10)
    assert r["hits"]["total"]["value"] == len(expected) == 30
    assert hit_ids(r) == list(reversed(expected))[5:15]
    assert r["hits"]["hits"][0]["sort"] == [int(list(reversed(expected))[5])]

    # aggregations (typed_keys, as the client's helpers ask for them) and highlighting
    r = es.search(index="shop", query={"match": {"title": "owl"}}, size=1, sort=["price"], typed_keys=True,
                  aggs={"cats": {"terms": {"field": "category", "size": 2}},
                        "top_price": {"max": {"field": "price"}}},
                  highlight={"fields": {"title": {}}, "pre_tags": ["["], "post_tags": ["]"]})
    counts = {}
    for i in owls:
        c = DOCS[int(i)]["category"]
        counts[c] = counts.get(c, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    assert r["aggregations"]["sterms#cats"] == {
        "doc_count_error_upper_bound": 0,
        "sum_other_doc_count": sum(n for _, n in top[2:]),
        "buckets": [{"key": k, "doc_count": n} for k, n in top[:2]]}
    assert r["aggregations"]["max#top_price"] == {"value": float(max(DOCS[int(i)]["price"] for i in owls))}
    first = min(owls, key=lambda i: DOCS[int(i)]["price"])
    assert hit_ids(r) == [first]
    assert r["hits"]["hits"][0]["highlight"] == {"title": [DOCS[int(first)]["title"].replace("owl", "[owl]")]}

    by_rank = [str(i) for i in sorted(range(N), key=lambda i: DOCS[i]["rank"])]
    r = es.search(index="shop", sort=["rank"], size=20)
    assert hit_ids(r) == by_rank[:20]

    # get, mget
    g = es.get(index="shop", id="42")
    assert (g["found"], g["_version"], g["_source"]) == (True, 1, DOCS[42])
    m = es.mget(index="shop", body={"ids": ["1", "nope"]})
    assert [(d["_id"], d["found"]) for d in m["docs"]] == [("1", True), ("nope", False)]

    # delete, and the client's NotFoundError
    d = es.delete(index="shop", id="42", refresh="true")
    assert (d["result"], d["_version"]) == ("deleted", 2)
    with pytest.raises(NotFoundError) as e:
        es.get(index="shop", id="42")
    assert e.value.status_code == 404
    assert e.value.info["found"] is False
    assert es.exists(index="shop", id="42") is False
    with pytest.raises(NotFoundError) as e:
        es.search(index="no-such-index", query={"match_all": {}})
    assert e.value.error == "index_not_found_exception"
    assert e.value.info["error"]["index"] == "no-such-index"

    # helpers.scan: scroll through every book, then the scroll is cleared
    seen = [h["_id"] for h in helpers.scan(es, index="shop", size=25, scroll="30s",
                                            query={"query": {"term": {"category": "books"}}})]
    assert sorted(seen) == sorted(b for b in books if b != "42")
    assert len(set(seen)) == len(seen)
    # preserve_order keeps the query's sort across pages
    ordered = [h["_id"] for h in helpers.scan(es, index="shop", size=70, preserve_order=True,
                                               query={"sort": ["rank"]})]
    assert ordered == [i for i in by_rank if i != "42"]

    # the index goes away
    assert es.indices.exists(index="shop") is True
    assert es.indices.delete(index="shop") == {"acknowledged": True}
    assert es.indices.exists(index="shop") is False
