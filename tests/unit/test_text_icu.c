/* test_text_icu.c — analysis-icu's icu_normalizer (token filter and char
 * filter, with the char filter's offset corrections) and icu_transform,
 * through libicu. Expected tokens are ICU's normalization forms (NFKC
 * casefold folds width, ligatures and ß) and transliterations, as
 * Lucene's ICUNormalizer2Filter / CharFilter and ICUTransformFilter give
 * them (checked against Lucene 4.10 with ICU4J 72 by tests/analysis). */
#include "text_test.h"

static void test_normalizer_filter(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, NULL, 0, "whitespace",
                                          (const char *[]){"icu_normalizer"}, 1, NULL, 0, &err);
    /* nfkc_cf by default: width, ligature, sharp s, case */
    check(an, "\xef\xbc\xa6\xef\xbd\x95\xef\xbd\x8c\xef\xbd\x8c \xef\xac\x81ne Stra\xc3\x9f" "e",
          (exp_tok[]){{"full", "word", 0, 0, 4}, {"fine", "word", 1, 5, 8}, {"strasse", "word", 2, 9, 15}, END});
    tv_analyzer_free(an);
    /* a unicode_set_filter leaves other chars alone; nfc composes */
    const char *inl = "{\"filter\":{\"n\":{\"type\":\"icu_normalizer\",\"name\":\"nfc\","
                      "\"unicode_set_filter\":\"[^e]\"}}}";
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace", (const char *[]){"n"}, 1, NULL, 0, &err);
    check(an, "a\xcc\x8a e\xcc\x81",
          (exp_tok[]){{"\xc3\xa5", "word", 0, 0, 2}, {"e\xcc\x81", "word", 1, 3, 5}, END});
    tv_analyzer_free(an);
    tv_error_clear(&err);
    inl = "{\"filter\":{\"n\":{\"type\":\"icu_normalizer\",\"name\":\"bogus\"}}}";
    assert_null(tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace", (const char *[]){"n"}, 1, NULL, 0, &err));
    assert_int_equal(err.code, TROVE_EARG);
    /* a normalizing filter: usable without a tokenizer */
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, NULL, (const char *[]){"icu_normalizer"}, 1, NULL, 0, &err);
    check(an, "A B", (exp_tok[]){{"a b", "word", 0, 0, 3}, END});
    tv_analyzer_free(an);
}

static void test_normalizer_char_filter(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    /* "ﬁ" (1 char) becomes "fi" (2): the token still spans the input's 3 chars;
     * "㎏" becomes "kg" */
    tv_analyzer *an = tv_analyzer_compose(NULL, NULL, 0, "whitespace", NULL, 0,
                                          (const char *[]){"icu_normalizer"}, 1, &err);
    check(an, "\xef\xac\x81ne \xe3\x8e\x8f x",
          (exp_tok[]){{"fine", "word", 0, 0, 3}, {"kg", "word", 1, 4, 5}, {"x", "word", 2, 6, 7}, END});
    tv_analyzer_free(an);
    /* decompose mode: nfc's decomposition is NFD; a longer output maps back */
    const char *inl = "{\"char_filter\":{\"d\":{\"type\":\"icu_normalizer\",\"name\":\"nfc\",\"mode\":\"decompose\"}}}";
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace", NULL, 0, (const char *[]){"d"}, 1, &err);
    check(an, "\xc3\xa9t\xc3\xa9 z", (exp_tok[]){{"e\xcc\x81te\xcc\x81", "word", 0, 0, 3}, {"z", "word", 1, 4, 5}, END});
    tv_analyzer_free(an);
}

static void test_transform(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    const char *inl = "{\"filter\":{\"t\":{\"type\":\"icu_transform\","
                      "\"id\":\"Any-Latin; NFD; [:Nonspacing Mark:] Remove; NFC\"}}}";
    tv_analyzer *an = tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace", (const char *[]){"t"}, 1,
                                          NULL, 0, &err);
    check(an, "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 \xce\xb1\xce\xb2",
          (exp_tok[]){{"Privet", "word", 0, 0, 6}, {"ab", "word", 1, 7, 9}, END});
    tv_analyzer_free(an);
    /* the default id is Null: nothing changes */
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, "whitespace", (const char *[]){"icu_transform"}, 1, NULL, 0, &err);
    check(an, "Ab", (exp_tok[]){{"Ab", "word", 0, 0, 2}, END});
    tv_analyzer_free(an);
    inl = "{\"filter\":{\"t\":{\"type\":\"icu_transform\",\"id\":\"No-Such\"}}}";
    tv_error_clear(&err);
    assert_null(tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace", (const char *[]){"t"}, 1, NULL, 0, &err));
    assert_int_equal(err.code, TROVE_EARG);
}

/* icu_tokenizer. Lucene 4.10's ICUTokenizer cannot run on Debian's ICU4J
 * (tests/analysis), so the expected tokens are those of Lucene 10's
 * TestICUTokenizer / TestICUTokenizerCJK (whose CJK cases use the
 * cjkAsWords=true config OpenSearch uses), checked against ICU 72 here. */
static tv_analyzer *icu_tok(void) {
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, NULL, 0, "icu_tokenizer", NULL, 0, NULL, 0, &err);
    assert_non_null(an);
    return an;
}

static void test_tokenizer_types(void **state) {
    (void)state;
    tv_analyzer *an = icu_tok();
    check(an, "David has 5000 bones",
          (exp_tok[]){{"David", "<ALPHANUM>", 0, 0, 5}, {"has", "<ALPHANUM>", 1, 6, 9},
                      {"5000", "<NUM>", 2, 10, 14}, {"bones", "<ALPHANUM>", 3, 15, 20}, END});
    check(an, "", (exp_tok[]){END});
    check(an, " . ", (exp_tok[]){END});
    check(an, "O'Reilly's 216.239.63.104 some-dashed ac/dc B2B mo\xcd\xa4" "chte",
          (exp_tok[]){{"O'Reilly's", "<ALPHANUM>", 0, 0, 10}, {"216.239.63.104", "<NUM>", 1, 11, 25},
                      {"some", NULL, 2, 26, 30}, {"dashed", NULL, 3, 31, 37}, {"ac", NULL, 4, 38, 40},
                      {"dc", NULL, 5, 41, 43}, {"B2B", "<ALPHANUM>", 6, 44, 47},
                      {"mo\xcd\xa4" "chte", "<ALPHANUM>", 7, 48, 55}, END});
    /* Hangul: <HANGUL>; Hebrew quotes inside words */
    check(an, "안녕하세요 한글입니다 훈민정음",
          (exp_tok[]){{"안녕하세요", "<HANGUL>", 0, 0, 5}, {"한글입니다", "<HANGUL>", 1, 6, 11},
                      {"훈민정음", "<HANGUL>", 2, 12, 16}, END});
    check(an, "דנקנר תקף את הדו\"ח",
          (exp_tok[]){{"דנקנר", NULL, 0, 0, 5}, {"תקף", NULL, 1, 6, 9}, {"את", NULL, 2, 10, 12},
                      {"הדו\"ח", "<ALPHANUM>", 3, 13, 18}, END});
    tv_analyzer_free(an);
}

static void test_tokenizer_dictionaries(void **state) {
    (void)state;
    tv_analyzer *an = icu_tok();
    check(an, "การที่ได้ต้องแสดงว่างานดี. แล้วเธอจะไปไหน? ๑๒๓๔",
          (exp_tok[]){{"การ", "<ALPHANUM>", 0, -1, -1}, {"ที่", NULL, 1, -1, -1}, {"ได้", NULL, 2, -1, -1},
                      {"ต้อง", NULL, 3, -1, -1}, {"แสดง", NULL, 4, -1, -1}, {"ว่า", NULL, 5, -1, -1},
                      {"งาน", NULL, 6, -1, -1}, {"ดี", NULL, 7, -1, -1}, {"แล้ว", NULL, 8, -1, -1},
                      {"เธอ", NULL, 9, -1, -1}, {"จะ", NULL, 10, -1, -1}, {"ไป", NULL, 11, -1, -1},
                      {"ไหน", NULL, 12, -1, -1}, {"๑๒๓๔", "<NUM>", 13, -1, -1}, END});
    check(an, "ພາສາລາວ", (exp_tok[]){{"ພາສາ", "<ALPHANUM>", 0, 0, 4}, {"ລາວ", "<ALPHANUM>", 1, 4, 7}, END});
    check(an, "သက်ဝင်လှုပ်ရှားစေပြီး",
          (exp_tok[]){{"သက်ဝင်", NULL, 0, -1, -1}, {"လှုပ်ရှား", NULL, 1, -1, -1}, {"စေ", NULL, 2, -1, -1},
                      {"ပြီး", NULL, 3, -1, -1}, END});
    check(an, "ផ្ទះស្កឹមស្កៃបីបួនខ្នងនេះ",
          (exp_tok[]){{"ផ្ទះ", NULL, 0, -1, -1}, {"ស្កឹមស្កៃ", NULL, 1, -1, -1}, {"បី", NULL, 2, -1, -1},
                      {"បួន", NULL, 3, -1, -1}, {"ខ្នង", NULL, 4, -1, -1}, {"នេះ", NULL, 5, -1, -1}, END});
    /* Han, Hiragana and Katakana: one Japanese run, CJ dictionary words,
     * all <IDEOGRAPHIC>; fullwidth digits stay a number */
    check(an, "仮名遣い カタカナ",
          (exp_tok[]){{"仮名遣い", "<IDEOGRAPHIC>", 0, 0, 4}, {"カタカナ", "<IDEOGRAPHIC>", 1, 5, 9}, END});
    check(an, "我购买了道具和服装。",
          (exp_tok[]){{"我", NULL, 0, 0, 1}, {"购买", NULL, 1, 1, 3}, {"了", NULL, 2, 3, 4},
                      {"道具", NULL, 3, 4, 6}, {"和", NULL, 4, 6, 7}, {"服装", NULL, 5, 7, 9}, END});
    check(an, "院內分機９４８３。",
          (exp_tok[]){{"院", NULL, 0, 0, 1}, {"內", NULL, 1, 1, 2}, {"分機", NULL, 2, 2, 4},
                      {"９４８３", "<NUM>", 3, 4, 8}, END});
    check(an, "それはまだ実験段階にあります💩",
          (exp_tok[]){{"それ", NULL, 0, 0, 2}, {"は", NULL, 1, 2, 3}, {"まだ", NULL, 2, 3, 5},
                      {"実験", NULL, 3, 5, 7}, {"段階", NULL, 4, 7, 9}, {"に", NULL, 5, 9, 10},
                      {"あり", NULL, 6, 10, 12}, {"ます", NULL, 7, 12, 14}, {"💩", "<EMOJI>", 8, 14, 16}, END});
    tv_analyzer_free(an);
}

static void test_tokenizer_emoji(void **state) {
    (void)state;
    tv_analyzer *an = icu_tok();
    check(an, "💩 💩💩",
          (exp_tok[]){{"💩", "<EMOJI>", 0, 0, 2}, {"💩", "<EMOJI>", 1, 3, 5}, {"💩", "<EMOJI>", 2, 5, 7}, END});
    check(an, "👩\u200d❤️\u200d👩", (exp_tok[]){{"👩\u200d❤️\u200d👩", "<EMOJI>", 0, 0, 8}, END});
    check(an, "🇺🇸🇺🇸", (exp_tok[]){{"🇺🇸", "<EMOJI>", 0, 0, 4}, {"🇺🇸", "<EMOJI>", 1, 4, 8}, END});
    /* keycaps: a digit or # is an emoji only with FE0F / 20E3 after it */
    check(an, "#️⃣ 3️⃣ # 3",
          (exp_tok[]){{"#️⃣", "<EMOJI>", 0, 0, 3}, {"3️⃣", "<EMOJI>", 1, 4, 7}, {"3", "<NUM>", 2, 10, 11}, END});
    check(an, "poo💩poo",
          (exp_tok[]){{"poo", "<ALPHANUM>", 0, 0, 3}, {"💩", "<EMOJI>", 1, 3, 5}, {"poo", "<ALPHANUM>", 2, 5, 8}, END});
    tv_analyzer_free(an);
}

/* Text longer than ICUTokenizer's 4096-char buffer is cut after the last
 * white space of each full buffer; a longer run without one is cut at
 * 4096 chars. */
static void test_tokenizer_chunks(void **state) {
    (void)state;
    tv_analyzer *an = icu_tok();
    char *text = malloc(9000 + 1);
    assert_non_null(text);
    /* 5000 letters: a token of 4096, then one of 904 */
    memset(text, 'a', 5000);
    text[5000] = 0;
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens toks;
    assert_int_equal(tv_analyze(an, &a, text, strlen(text), 0, &toks), TROVE_OK);
    assert_int_equal(toks.len, 2);
    assert_int_equal(toks.items[0].end16, 4096);
    assert_int_equal(toks.items[1].start16, 4096);
    assert_int_equal(toks.items[1].end16, 5000);
    /* with a space at 4000 the buffer ends there and the word after it is whole */
    text[4000] = ' ';
    memset(text + 5000, 'b', 1000);
    text[6000] = 0;
    assert_int_equal(tv_analyze(an, &a, text, strlen(text), 0, &toks), TROVE_OK);
    assert_int_equal(toks.len, 2);
    assert_int_equal(toks.items[0].end16, 4000);
    assert_int_equal(toks.items[1].start16, 4001);
    assert_int_equal(toks.items[1].end16, 6000);
    tv_arena_fini(&a);
    free(text);
    tv_analyzer_free(an);
}

#ifdef TROVE_HAVE_UTR30
/* icu_folding: the cases of Lucene's TestICUFoldingFilter (the folding
 * data is Lucene 4.10's utr30.nrm, rebuilt for ICU 72). */
static void test_folding(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, NULL, 0, "whitespace", (const char *[]){"icu_folding"}, 1,
                                          NULL, 0, &err);
    check(an, "This is a test", (exp_tok[]){{"this", "word", 0, 0, 4}, {"is", NULL, 1, 5, 7},
                                             {"a", NULL, 2, 8, 9}, {"test", NULL, 3, 10, 14}, END});
    check(an, "Ruß ΜΆΪΟΣ Μάϊος 𐐖 ﴳﴺﰧ क्\u200dष",
          (exp_tok[]){{"russ", NULL, 0, -1, -1}, {"μαιοσ", NULL, 1, -1, -1}, {"μαιοσ", NULL, 2, -1, -1},
                      {"𐐾", NULL, 3, -1, -1}, {"طمطمطم", NULL, 4, -1, -1}, {"कष", NULL, 5, -1, -1}, END});
    check(an, "résumé re\u0301sume\u0301 ৭০৬ đis cræzy ELİF eli\u0307f",
          (exp_tok[]){{"resume", NULL, 0, -1, -1}, {"resume", NULL, 1, -1, -1}, {"706", NULL, 2, -1, -1},
                      {"dis", NULL, 3, -1, -1}, {"craezy", NULL, 4, -1, -1}, {"elif", NULL, 5, -1, -1},
                      {"elif", NULL, 6, -1, -1}, END});
    tv_analyzer_free(an);
    /* unicode_set_filter: only the set's characters are folded */
    const char *inl = "{\"filter\":{\"f\":{\"type\":\"icu_folding\",\"unicode_set_filter\":\"[^â]\"}}}";
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, inl, strlen(inl), "standard", (const char *[]){"f"}, 1, NULL, 0, &err);
    check(an, "icufolding Föo Bâr Ruß",
          (exp_tok[]){{"icufolding", NULL, 0, -1, -1}, {"foo", NULL, 1, -1, -1}, {"bâr", NULL, 2, -1, -1},
                      {"russ", NULL, 3, -1, -1}, END});
    tv_analyzer_free(an);
    inl = "{\"filter\":{\"f\":{\"type\":\"icu_folding\",\"unicode_set_filter\":\"[^a\"}}}";
    tv_error_clear(&err);
    assert_null(tv_analyzer_compose(NULL, inl, strlen(inl), "standard", (const char *[]){"f"}, 1, NULL, 0, &err));
    assert_int_equal(err.code, TROVE_EARG);
}

/* icu_analyzer: OpenSearch's IcuAnalyzerTests */
static void test_icu_analyzer(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"analyzer\":{\"icu\":{\"type\":\"icu_analyzer\"}}}", &err);
    assert_non_null(r);
    const tv_analyzer *an = tv_analysis_get(r, "icu", 3);
    check(an, "안녕은하철도999극장판2.1981년8월8일.일본개봉작1999년재더빙video판",
          (exp_tok[]){{"안녕은하철도", NULL, 0, -1, -1}, {"999", "<NUM>", 1, -1, -1}, {"극장판", NULL, 2, -1, -1},
                      {"2.1981", NULL, 3, -1, -1}, {"년", NULL, 4, -1, -1}, {"8", NULL, 5, -1, -1},
                      {"월", NULL, 6, -1, -1}, {"8", NULL, 7, -1, -1}, {"일", NULL, 8, -1, -1},
                      {"일본개봉작", NULL, 9, -1, -1}, {"1999", NULL, 10, -1, -1}, {"년재더빙", NULL, 11, -1, -1},
                      {"video", NULL, 12, -1, -1}, {"판", NULL, 13, -1, -1}, END});
    check(an, "경승지·산악·협곡·해협·곶·심연·폭포·호수·급류",
          (exp_tok[]){{"경승지", NULL, 0, -1, -1}, {"산악", NULL, 1, -1, -1}, {"협곡", NULL, 2, -1, -1},
                      {"해협", NULL, 3, -1, -1}, {"곶", NULL, 4, -1, -1}, {"심연", NULL, 5, -1, -1},
                      {"폭포", NULL, 6, -1, -1}, {"호수", NULL, 7, -1, -1}, {"급류", NULL, 8, -1, -1}, END});
    /* the char filter's expansions map back as recordOffsetDiff maps
     * them: the first two of the three chars of "(1)" from "⑴" map to
     * the segment's start, so its "1" is 6-6 */
    check(an, "① ② ③ ⑴ ⑵ ⑶ ¼ ⅓ ⅜ ¹ ² ³ ₁ ₂ ₃",
          (exp_tok[]){{"1", NULL, 0, 0, 1}, {"2", NULL, 1, 2, 3}, {"3", NULL, 2, 4, 5}, {"1", NULL, 3, 6, 6},
                      {"2", NULL, 4, 8, 8}, {"3", NULL, 5, 10, 10}, {"1/4", NULL, 6, 12, 13},
                      {"1/3", NULL, 7, 14, 15}, {"3/8", NULL, 8, 16, 17}, {"1", NULL, 9, 18, 19},
                      {"2", NULL, 10, 20, 21}, {"3", NULL, 11, 22, 23}, {"1", NULL, 12, 24, 25},
                      {"2", NULL, 13, 26, 27}, {"3", NULL, 14, 28, 29}, END});
    tv_analysis_free(r);
    expect_error("{\"analyzer\":{\"icu\":{\"type\":\"icu_analyzer\",\"mode\":\"wrong\"}}}", TROVE_EARG,
                 "Unknown mode [wrong] in analyzer [icu], expected one of [compose, decompose]");
    /* method + unicode_set_filter reach the char filter */
    tv_error_clear(&err);
    r = reg("{\"analyzer\":{\"icu\":{\"type\":\"icu_analyzer\",\"method\":\"nfc\",\"mode\":\"decompose\"}}}",
            &err);
    assert_non_null(r);
    check(tv_analysis_get(r, "icu", 3), "Ｆｏｏ é", (exp_tok[]){{"foo", NULL, 0, 0, 3}, {"e", NULL, 1, 4, 5}, END});
    tv_analysis_free(r);
}
#endif

/* icu_collation: keys compared as OpenSearch's
 * SimpleIcuCollationTokenFilterTests compare them (equal, or ordered). */
static int coll_cmp(const char *filter_json, const char *x, const char *y) {
    char js[1024];
    snprintf(js, sizeof js, "{\"filter\":{\"c\":%s}}", filter_json);
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, js, strlen(js), "keyword", (const char *[]){"c"}, 1, NULL, 0, &err);
    if (!an) fprintf(stderr, "%s: %s\n", js, err.reason);
    assert_non_null(an);
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens tx, ty;
    assert_int_equal(tv_analyze(an, &a, x, strlen(x), 0, &tx), TROVE_OK);
    assert_int_equal(tv_analyze(an, &a, y, strlen(y), 0, &ty), TROVE_OK);
    assert_int_equal(tx.len, 1);
    assert_int_equal(ty.len, 1);
    size_t n = tx.items[0].term_len < ty.items[0].term_len ? tx.items[0].term_len : ty.items[0].term_len;
    int c = memcmp(tx.items[0].term, ty.items[0].term, n);
    if (!c) c = (tx.items[0].term_len > ty.items[0].term_len) - (tx.items[0].term_len < ty.items[0].term_len);
    tv_arena_fini(&a);
    tv_analyzer_free(an);
    return c < 0 ? -1 : c > 0;
}

static void test_collation(void **state) {
    (void)state;
    assert_int_equal(coll_cmp("{\"type\":\"icu_collation\",\"language\":\"tr\",\"strength\":\"primary\"}",
                              "I WİLL USE TURKİSH CASING", "ı will use turkish casıng"), 0);
    assert_int_equal(coll_cmp("{\"type\":\"icu_collation\",\"language\":\"en\",\"strength\":\"secondary\","
                              "\"decomposition\":\"no\"}", "TESTING", "testing"), 0);
    assert_int_equal(coll_cmp("{\"type\":\"icu_collation\",\"language\":\"en\",\"strength\":\"tertiary\"}",
                              "TESTING", "testing"), 1);
    assert_int_equal(coll_cmp("{\"type\":\"icu_collation\",\"language\":\"en\",\"alternate\":\"shifted\"}",
                              "foo-bar", "foo bar"), 0);
    assert_int_equal(coll_cmp("{\"type\":\"icu_collation\",\"language\":\"en\",\"numeric\":true}",
                              "foobar-9", "foobar-10"), -1);
    assert_int_equal(coll_cmp("{\"type\":\"icu_collation\",\"language\":\"en\",\"strength\":\"primary\","
                              "\"caseLevel\":\"true\"}", "résumé", "resume"), 0);
    assert_int_equal(coll_cmp("{\"type\":\"icu_collation\",\"language\":\"en\",\"strength\":\"primary\","
                              "\"caseLevel\":\"true\"}", "Résumé", "resume"), 1);
    assert_int_equal(coll_cmp("{\"type\":\"icu_collation\",\"language\":\"en\",\"strength\":\"tertiary\","
                              "\"caseFirst\":\"upper\"}", "Resume", "resume"), -1);
    assert_int_equal(coll_cmp("{\"type\":\"icu_collation\",\"rules\":\"&ae , ä & AE , Ä & oe , ö & OE , Ö & ue , ü & UE , Ü\","
                              "\"strength\":\"primary\"}", "Töne", "Toene"), 0);
    assert_int_equal(coll_cmp("{\"type\":\"icu_collation\"}", "a", "b"), -1);
    expect_error("{\"filter\":{\"c\":{\"type\":\"icu_collation\",\"strength\":\"x\"}}}", TROVE_EARG,
                 "Invalid strength: x");
    expect_error("{\"filter\":{\"c\":{\"type\":\"icu_collation\",\"decomposition\":\"x\"}}}", TROVE_EARG,
                 "Invalid decomposition: x");
    expect_error("{\"filter\":{\"c\":{\"type\":\"icu_collation\",\"alternate\":\"x\"}}}", TROVE_EARG,
                 "Invalid alternate: x");
    expect_error("{\"filter\":{\"c\":{\"type\":\"icu_collation\",\"caseFirst\":\"x\"}}}", TROVE_EARG,
                 "Invalid caseFirst: x");
    expect_error("{\"filter\":{\"c\":{\"type\":\"icu_collation\",\"rules\":\"&&&\"}}}", TROVE_EARG,
                 "Failed to resolve collation rules location");
}

/* The encoding is IndexableBinaryStringTools': the primary key of "Töne"
 * in German (bytes 50 46 44 32 00) is the chars 2823 110C 4000 0001. */
static void test_collation_encoding(void **state) {
    (void)state;
    const char *js = "{\"filter\":{\"c\":{\"type\":\"icu_collation\",\"language\":\"de\",\"strength\":\"primary\"}}}";
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, js, strlen(js), "keyword", (const char *[]){"c"}, 1, NULL, 0, &err);
    check(an, "Töne", (exp_tok[]){{"\xe2\xa0\xa3\xe1\x84\x8c\xe4\x80\x80\x01", "word", 0, 0, 4}, END});
    tv_analyzer_free(an);
}

/* rule_files would read the node's config directory: unsupported */
static void test_tokenizer_settings(void **state) {
    (void)state;
    expect_error("{\"tokenizer\":{\"t\":{\"type\":\"icu_tokenizer\",\"rule_files\":\"Latn:KeywordTokenizer.rbbi\"}}}",
                 TROVE_EUNSUPPORTED, "[rule_files] is not supported for [icu_tokenizer]");
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"tokenizer\":{\"t\":{\"type\":\"icu_tokenizer\",\"rule_files\":[]}},"
                         "\"analyzer\":{\"a\":{\"tokenizer\":\"t\"}}}",
                         &err);
    assert_non_null(r);
    check(tv_analysis_get(r, "a", 1), "Foo Bar", (exp_tok[]){{"Foo", NULL, 0, 0, 3}, {"Bar", NULL, 1, 4, 7}, END});
    tv_analysis_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalizer_filter),
        cmocka_unit_test(test_normalizer_char_filter),
        cmocka_unit_test(test_transform),
        cmocka_unit_test(test_tokenizer_types),
        cmocka_unit_test(test_tokenizer_dictionaries),
        cmocka_unit_test(test_tokenizer_emoji),
        cmocka_unit_test(test_tokenizer_chunks),
        cmocka_unit_test(test_tokenizer_settings),
        cmocka_unit_test(test_collation),
        cmocka_unit_test(test_collation_encoding),
#ifdef TROVE_HAVE_UTR30
        cmocka_unit_test(test_folding),
        cmocka_unit_test(test_icu_analyzer),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
