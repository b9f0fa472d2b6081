/*
 * test_text_kuromoji.c — Japanese analysis (analysis-kuromoji): the
 * kuromoji_tokenizer in search, normal and extended modes, punctuation,
 * user_dictionary_rules, the kuromoji filters and the `kuromoji` analyzer,
 * settings errors, and the components switched off (--no-ja).
 *
 * Expected tokens came from Lucene 4.10's kuromoji (Debian's
 * lucene-analyzers-kuromoji-4.10.4.jar) run through jshell/javac over the
 * same sentences: JapaneseTokenizer(reader, userDict, discardPunctuation,
 * mode) and JapaneseAnalyzer. Two places follow Lucene 10 (OpenSearch
 * 3.x) instead, as noted: extended mode keeps compound tokens and the
 * `kuromoji` analyzer drops them (JapaneseAnalyzer passes
 * discardCompoundToken = true since Lucene 8.5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "text/text.h"
#include "text_test.h"

typedef struct jt {
    const char *term;
    int pos, start16, end16, pos_len;
} jt;
typedef struct jcase {
    const char *text;
    const jt *toks;
} jcase;

#ifdef TROVE_HAVE_MECAB

/* Runs an analyzer and compares term, position, UTF-16 offsets and
 * positionLength (1 when not a compound). */
static void jcheck(const tv_analyzer *an, const char *text, const jt *exp) {
    assert_non_null(an);
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens toks;
    assert_int_equal(tv_analyze(an, &a, text, strlen(text), 0, &toks), TROVE_OK);
    size_t n = 0;
    while (exp[n].term) n++;
    bool ok = toks.len == n;
    for (size_t i = 0; ok && i < n; i++) {
        const tv_token *t = &toks.items[i];
        int pl = t->pos_len ? t->pos_len : 1;
        ok = t->term_len == strlen(exp[i].term) && !memcmp(t->term, exp[i].term, t->term_len) &&
             (int)t->position == exp[i].pos && (int)t->start16 == exp[i].start16 &&
             (int)t->end16 == exp[i].end16 && pl == exp[i].pos_len;
    }
    if (!ok) {
        fprintf(stderr, "[%s]\n", text);
        for (size_t i = 0; i < toks.len; i++)
            fprintf(stderr, "  got  %.*s %u %u-%u len %u\n", (int)toks.items[i].term_len,
                    toks.items[i].term, toks.items[i].position, toks.items[i].start16,
                    toks.items[i].end16, toks.items[i].pos_len);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "  want %s %d %d-%d len %d\n", exp[i].term, exp[i].pos, exp[i].start16,
                    exp[i].end16, exp[i].pos_len);
    }
    for (size_t i = 0; i < toks.len; i++) { /* byte offsets agree with UTF-16 ones */
        assert_int_equal(toks.items[i].start16, tv_utf16_len(text, toks.items[i].start));
        assert_int_equal(toks.items[i].end16, tv_utf16_len(text, toks.items[i].end));
    }
    tv_arena_fini(&a);
    assert_true(ok);
}

/* search */
static const jt search_0[] = {
    {"関西", 0, 0, 2, 1},
    {"関西国際空港", 0, 0, 6, 3},
    {"国際", 1, 2, 4, 1},
    {"空港", 2, 4, 6, 1},
    {"に", 3, 6, 7, 1},
    {"行っ", 4, 7, 9, 1},
    {"た", 5, 9, 10, 1},
    {NULL, 0, 0, 0, 0}};
static const jt search_1[] = {
    {"シニア", 0, 0, 3, 1},
    {"シニアソフトウェアエンジニア", 0, 0, 14, 3},
    {"ソフトウェア", 1, 3, 9, 1},
    {"エンジニア", 2, 9, 14, 1},
    {NULL, 0, 0, 0, 0}};
static const jt search_2[] = {
    {"日本", 0, 0, 2, 1},
    {"日本経済新聞社", 0, 0, 7, 4},
    {"経済", 1, 2, 4, 1},
    {"新聞", 2, 4, 6, 1},
    {"社", 3, 6, 7, 1},
    {"の", 4, 7, 8, 1},
    {"記者", 5, 8, 10, 1},
    {"会見", 6, 10, 12, 1},
    {NULL, 0, 0, 0, 0}};
static const jt search_3[] = {
    {"今日", 0, 0, 2, 1},
    {"は", 1, 2, 3, 1},
    {"2024", 2, 3, 7, 1},
    {"年", 3, 7, 8, 1},
    {"12", 4, 8, 10, 1},
    {"月", 5, 10, 11, 1},
    {"6", 6, 11, 12, 1},
    {"日", 7, 12, 13, 1},
    {"です", 8, 13, 15, 1},
    {NULL, 0, 0, 0, 0}};
static const jt search_4[] = {
    {"ｶﾞｷﾞﾓﾉ", 0, 0, 6, 1},
    {"ＡＢＣ", 1, 7, 10, 1},
    {"１", 2, 10, 11, 1},
    {"２", 3, 11, 12, 1},
    {"３", 4, 12, 13, 1},
    {NULL, 0, 0, 0, 0}};
static const jt search_5[] = {
    {"明日", 0, 0, 2, 1},
    {"東京", 1, 3, 5, 1},
    {"へ", 2, 5, 6, 1},
    {"行き", 3, 6, 8, 1},
    {"ます", 4, 8, 10, 1},
    {NULL, 0, 0, 0, 0}};
static const jt search_6[] = {
    {"アブラカダブラ", 0, 0, 7, 1},
    {"という", 1, 7, 10, 1},
    {"呪文", 2, 10, 12, 1},
    {NULL, 0, 0, 0, 0}};
static const jt search_7[] = {
    {"俺", 0, 0, 1, 1},
    {"の", 1, 1, 2, 1},
    {"🍣", 2, 2, 4, 1},
    {"は", 3, 4, 5, 1},
    {"美味しい", 4, 5, 9, 1},
    {NULL, 0, 0, 0, 0}};
static const jt search_8[] = {
    {"𠮷", 0, 0, 2, 1},
    {"野家", 1, 2, 4, 1},
    {"で", 2, 4, 5, 1},
    {"牛", 3, 5, 6, 1},
    {"丼", 4, 6, 7, 1},
    {"を", 5, 7, 8, 1},
    {"食べ", 6, 8, 10, 1},
    {"た", 7, 10, 11, 1},
    {NULL, 0, 0, 0, 0}};
static const jt search_9[] = {
    {"特許", 0, 0, 2, 1},
    {"出願", 1, 2, 4, 1},
    {"人", 2, 4, 5, 1},
    {"株式", 3, 5, 7, 1},
    {"株式会社", 3, 5, 9, 2},
    {"会社", 4, 7, 9, 1},
    {"日立", 5, 9, 11, 1},
    {"日立製作所", 5, 9, 14, 3},
    {"製作", 6, 11, 13, 1},
    {"所", 7, 13, 14, 1},
    {"中央", 8, 14, 16, 1},
    {"研究所", 9, 16, 19, 1},
    {NULL, 0, 0, 0, 0}};
static const jt search_10[] = {
    {"吾輩", 0, 0, 2, 1},
    {"は", 1, 2, 3, 1},
    {"猫", 2, 3, 4, 1},
    {"で", 3, 4, 5, 1},
    {"ある", 4, 5, 7, 1},
    {"名前", 5, 8, 10, 1},
    {"は", 6, 10, 11, 1},
    {"まだ", 7, 11, 13, 1},
    {"無い", 8, 13, 15, 1},
    {"どこ", 9, 16, 18, 1},
    {"で", 10, 18, 19, 1},
    {"生れ", 11, 19, 21, 1},
    {"た", 12, 21, 22, 1},
    {"か", 13, 22, 23, 1},
    {"とんと", 14, 23, 26, 1},
    {"見当", 15, 26, 28, 1},
    {"が", 16, 28, 29, 1},
    {"つか", 17, 29, 31, 1},
    {"ぬ", 18, 31, 32, 1},
    {"何", 19, 33, 34, 1},
    {"でも", 20, 34, 36, 1},
    {"薄暗い", 21, 36, 39, 1},
    {"じめじめ", 22, 39, 43, 1},
    {"し", 23, 43, 44, 1},
    {"た", 24, 44, 45, 1},
    {"所", 25, 45, 46, 1},
    {"で", 26, 46, 47, 1},
    {"ニャーニャー", 27, 47, 53, 1},
    {"泣い", 28, 53, 55, 1},
    {"て", 29, 55, 56, 1},
    {"いた事", 30, 56, 59, 1},
    {"だけ", 31, 59, 61, 1},
    {"は", 32, 61, 62, 1},
    {"記憶", 33, 62, 64, 1},
    {"し", 34, 64, 65, 1},
    {"て", 35, 65, 66, 1},
    {"いる", 36, 66, 68, 1},
    {NULL, 0, 0, 0, 0}};
static const jcase search[] = {
    {"関西国際空港に行った", search_0},
    {"シニアソフトウェアエンジニア", search_1},
    {"日本経済新聞社の記者会見", search_2},
    {"今日は2024年12月6日です", search_3},
    {"ｶﾞｷﾞﾓﾉ、ＡＢＣ１２３！", search_4},
    {"明日、東京へ行きます！？", search_5},
    {"アブラカダブラという呪文", search_6},
    {"俺の🍣は美味しい", search_7},
    {"𠮷野家で牛丼を食べた", search_8},
    {"特許出願人株式会社日立製作所中央研究所", search_9},
    {"吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。", search_10},
};
/* normal */
static const jt normal_0[] = {
    {"関西国際空港", 0, 0, 6, 1},
    {"に", 1, 6, 7, 1},
    {"行っ", 2, 7, 9, 1},
    {"た", 3, 9, 10, 1},
    {NULL, 0, 0, 0, 0}};
static const jt normal_1[] = {
    {"日本経済新聞社", 0, 0, 7, 1},
    {"の", 1, 7, 8, 1},
    {"記者", 2, 8, 10, 1},
    {"会見", 3, 10, 12, 1},
    {NULL, 0, 0, 0, 0}};
static const jt normal_2[] = {
    {"本日", 0, 0, 2, 1},
    {"十", 1, 2, 3, 1},
    {"万", 2, 3, 4, 1},
    {"二", 3, 4, 5, 1},
    {"千", 4, 5, 6, 1},
    {"五", 5, 6, 7, 1},
    {"百", 6, 7, 8, 1},
    {"円", 7, 8, 9, 1},
    {"の", 8, 9, 10, 1},
    {"ワイン", 9, 10, 13, 1},
    {"を", 10, 13, 14, 1},
    {"購入", 11, 14, 16, 1},
    {NULL, 0, 0, 0, 0}};
static const jt normal_3[] = {
    {"ｻｰﾊﾞｰ", 0, 0, 5, 1},
    {"の", 1, 5, 6, 1},
    {"ﾊﾟﾌｫｰﾏﾝｽ", 2, 6, 14, 1},
    {"を", 3, 14, 15, 1},
    {"改善", 4, 15, 17, 1},
    {"し", 5, 17, 18, 1},
    {"た", 6, 18, 19, 1},
    {NULL, 0, 0, 0, 0}};
static const jt normal_4[] = {
    {"国立", 0, 0, 2, 1},
    {"国会図書館", 1, 2, 7, 1},
    {"デジタル", 2, 7, 11, 1},
    {"コレクション", 3, 11, 17, 1},
    {NULL, 0, 0, 0, 0}};
static const jcase normal[] = {
    {"関西国際空港に行った", normal_0},
    {"日本経済新聞社の記者会見", normal_1},
    {"本日十万二千五百円のワインを購入", normal_2},
    {"ｻｰﾊﾞｰのﾊﾟﾌｫｰﾏﾝｽを改善した", normal_3},
    {"国立国会図書館デジタルコレクション", normal_4},
};
/* keep */
static const jt keep_0[] = {
    {"明日", 0, 0, 2, 1},
    {"、", 1, 2, 3, 1},
    {"東京", 2, 3, 5, 1},
    {"へ", 3, 5, 6, 1},
    {"行き", 4, 6, 8, 1},
    {"ます", 5, 8, 10, 1},
    {"！", 6, 10, 11, 1},
    {"？", 7, 11, 12, 1},
    {NULL, 0, 0, 0, 0}};
static const jt keep_1[] = {
    {"「", 0, 0, 1, 1},
    {"こんにちは", 1, 1, 6, 1},
    {"」", 2, 6, 7, 1},
    {"と", 3, 7, 8, 1},
    {"彼", 4, 8, 9, 1},
    {"は", 5, 9, 10, 1},
    {"言っ", 6, 10, 12, 1},
    {"た", 7, 12, 13, 1},
    {"…", 8, 13, 14, 1},
    {"。", 9, 14, 15, 1},
    {NULL, 0, 0, 0, 0}};
static const jt keep_2[] = {
    {"ABCDEFGHIJKLMNOPQRSTUVWXYZabc", 0, 0, 29, 1},
    {" ", 1, 29, 30, 1},
    {"def", 2, 30, 33, 1},
    {"　", 3, 33, 34, 1},
    {"全角", 4, 34, 36, 1},
    {"スペース", 5, 36, 40, 1},
    {NULL, 0, 0, 0, 0}};
static const jcase keep[] = {
    {"明日、東京へ行きます！？", keep_0},
    {"「こんにちは」と彼は言った…。", keep_1},
    {"ABCDEFGHIJKLMNOPQRSTUVWXYZabc def　全角スペース", keep_2},
};
/* analyzer */
static const jt analyzer_0[] = {
    {"関西", 0, 0, 2, 1},
    {"国際", 1, 2, 4, 1},
    {"空港", 2, 4, 6, 1},
    {"行く", 4, 7, 9, 1},
    {NULL, 0, 0, 0, 0}};
static const jt analyzer_1[] = {
    {"ガギモノ", 0, 0, 6, 1},
    {"abc", 1, 7, 10, 1},
    {"1", 2, 10, 11, 1},
    {"2", 3, 11, 12, 1},
    {"3", 4, 12, 13, 1},
    {NULL, 0, 0, 0, 0}};
static const jt analyzer_2[] = {
    {"lucene", 0, 0, 6, 1},
    {"検索", 2, 7, 9, 1},
    {"エンジン", 3, 9, 13, 1},
    {"作る", 5, 14, 16, 1},
    {NULL, 0, 0, 0, 0}};
static const jt analyzer_3[] = {
    {"寿司", 0, 0, 2, 1},
    {"食べる", 2, 3, 5, 1},
    {NULL, 0, 0, 0, 0}};
static const jt analyzer_4[] = {
    {"東京", 0, 0, 2, 1},
    {"都", 1, 2, 3, 1},
    {"住む", 3, 4, 6, 1},
    {NULL, 0, 0, 0, 0}};
static const jcase analyzer[] = {
    {"関西国際空港に行った", analyzer_0},
    {"ｶﾞｷﾞﾓﾉ、ＡＢＣ１２３！", analyzer_1},
    {"Ｌｕｃｅｎｅで検索エンジンを作る", analyzer_2},
    {"寿司が食べたい。", analyzer_3},
    {"東京都に住んでいます。", analyzer_4},
};
static const jt extended_0[] = {
    {"ア", 0, 0, 1, 1},
    {"ブ", 1, 1, 2, 1},
    {"ラ", 2, 2, 3, 1},
    {"カ", 3, 3, 4, 1},
    {"ダ", 4, 4, 5, 1},
    {"ブ", 5, 5, 6, 1},
    {"ラ", 6, 6, 7, 1},
    {"という", 7, 7, 10, 1},
    {"呪文", 8, 10, 12, 1},
    {NULL, 0, 0, 0, 0}};
static const jcase extended[] = {{"アブラカダブラという呪文", extended_0}};

static tv_analyzer *tok_with(const char *json, const char *const *filters, size_t nf) {
    tv_error err = TV_ERROR_INIT;
    char buf[1024];
    snprintf(buf, sizeof buf, "{\"tokenizer\":{\"t\":%s}}", json);
    tv_analyzer *an = tv_analyzer_compose(NULL, buf, strlen(buf), "t", filters, nf, NULL, 0, &err);
    if (!an) fprintf(stderr, "compose: %s\n", err.reason);
    return an;
}

static void run_cases(const char *tok_json, const jcase *cases, size_t n) {
    tv_analyzer *an = tok_with(tok_json, NULL, 0);
    for (size_t i = 0; i < n; i++) jcheck(an, cases[i].text, cases[i].toks);
    tv_analyzer_free(an);
}

static void test_available(void **state) {
    (void)state;
    assert_true(tv_ja_available());
}

static void test_search_mode(void **state) {
    (void)state;
    run_cases("{\"type\":\"kuromoji_tokenizer\"}", search, TV_ARRAY_LEN(search));
    /* the bare name is search mode too */
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, NULL, 0, "kuromoji_tokenizer", NULL, 0, NULL, 0, &err);
    jcheck(an, search[0].text, search[0].toks);
    tv_analyzer_free(an);
}

static void test_normal_mode(void **state) {
    (void)state;
    run_cases("{\"type\":\"kuromoji_tokenizer\",\"mode\":\"normal\"}", normal, TV_ARRAY_LEN(normal));
    /* Mode.valueOf(upper-cased) */
    run_cases("{\"type\":\"kuromoji_tokenizer\",\"mode\":\"NORMAL\"}", normal, 1);
}

static void test_extended_mode(void **state) {
    (void)state;
    /* unknown words become unigrams */
    run_cases("{\"type\":\"kuromoji_tokenizer\",\"mode\":\"extended\"}", extended, 1);
    /* Lucene 10: extended mode keeps the compound (4.10 dropped it) */
    tv_analyzer *an = tok_with("{\"type\":\"kuromoji_tokenizer\",\"mode\":\"extended\"}", NULL, 0);
    jcheck(an, "関西国際空港", (const jt[]){{"関西", 0, 0, 2, 1}, {"関西国際空港", 0, 0, 6, 3},
                                      {"国際", 1, 2, 4, 1}, {"空港", 2, 4, 6, 1}, {NULL, 0, 0, 0, 0}});
    tv_analyzer_free(an);
}

static void test_punctuation_and_compounds(void **state) {
    (void)state;
    run_cases("{\"type\":\"kuromoji_tokenizer\",\"discard_punctuation\":false}", keep, TV_ARRAY_LEN(keep));
    tv_analyzer *an = tok_with("{\"type\":\"kuromoji_tokenizer\",\"discard_compound_token\":true}", NULL, 0);
    jcheck(an, "関西国際空港", (const jt[]){{"関西", 0, 0, 2, 1}, {"国際", 1, 2, 4, 1},
                                      {"空港", 2, 4, 6, 1}, {NULL, 0, 0, 0, 0}});
    jcheck(an, "", (const jt[]){{NULL, 0, 0, 0, 0}});
    jcheck(an, "。、！", (const jt[]){{NULL, 0, 0, 0, 0}});
    tv_analyzer_free(an);
}

static void test_user_dictionary(void **state) {
    (void)state;
    const char *rules = "{\"type\":\"kuromoji_tokenizer\",\"user_dictionary_rules\":["
                        "\"関西国際空港,関西 国際 空港,カンサイ コクサイ クウコウ,カスタム名詞\","
                        "\"# a comment\",\"朝青龍,朝青龍,アサショウリュウ,カスタム人名\"]}";
    const jt exp[] = {{"朝青龍", 0, 0, 3, 1},  {"が", 1, 3, 4, 1},   {"関西", 2, 4, 6, 1},
                      {"国際", 3, 6, 8, 1},    {"空港", 4, 8, 10, 1}, {"で", 5, 10, 11, 1},
                      {"寿司", 6, 11, 13, 1},  {"を", 7, 13, 14, 1},  {"食べ", 8, 14, 16, 1},
                      {"た", 9, 16, 17, 1},    {NULL, 0, 0, 0, 0}};
    tv_analyzer *an = tok_with(rules, NULL, 0);
    jcheck(an, "朝青龍が関西国際空港で寿司を食べた", exp);
    tv_analyzer_free(an);
    /* segments carry the rule's readings and part of speech */
    an = tok_with(rules, (const char *[]){"kuromoji_readingform"}, 1);
    jcheck(an, "関西国際空港に", (const jt[]){{"カンサイ", 0, 0, 2, 1}, {"コクサイ", 1, 2, 4, 1},
                                       {"クウコウ", 2, 4, 6, 1}, {"ニ", 3, 6, 7, 1}, {NULL, 0, 0, 0, 0}});
    tv_analyzer_free(an);
}

/* As expect_error, with `reason` a part of the reason. */
static void expect_error_in(const char *json, tv_status code, const char *reason) {
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg(json, &err);
    if (r) fprintf(stderr, "no error for %s\n", json);
    assert_null(r);
    assert_int_equal(err.code, code);
    if (!strstr(err.reason, reason)) fprintf(stderr, "reason: %s\n", err.reason);
    assert_non_null(strstr(err.reason, reason));
}

static void test_errors(void **state) {
    (void)state;
    expect_error_in("{\"tokenizer\":{\"t\":{\"type\":\"kuromoji_tokenizer\",\"mode\":\"fast\"}}}", TROVE_EARG,
                 "No enum constant org.apache.lucene.analysis.ja.JapaneseTokenizer.Mode.FAST");
    expect_error_in("{\"tokenizer\":{\"t\":{\"type\":\"kuromoji_tokenizer\",\"user_dictionary_rules\":"
                 "[\"a,a,ア,名詞\",\"a,a,ア,名詞\"]}}}",
                 TROVE_EARG, "Found duplicate term [a] in user dictionary at line [2]");
    expect_error_in("{\"tokenizer\":{\"t\":{\"type\":\"kuromoji_tokenizer\",\"user_dictionary_rules\":"
                 "[\"東京都,東京 都,トウキョウ,名詞\"]}}}",
                 TROVE_EARG, "the number of segmentations (2) does not the match number of readings (1)");
    expect_error_in("{\"tokenizer\":{\"t\":{\"type\":\"kuromoji_tokenizer\",\"user_dictionary_rules\":"
                 "[\"東京都,東京 府,トウキョウ フ,名詞\"]}}}",
                 TROVE_EARG, "does not match the surface form (東京都)");
    expect_error_in("{\"tokenizer\":{\"t\":{\"type\":\"kuromoji_tokenizer\",\"user_dictionary\":\"u.txt\","
                 "\"user_dictionary_rules\":[\"a,a,ア,名詞\"]}}}",
                 TROVE_EARG, "It is not allowed to use [user_dictionary] in conjunction with [user_dictionary_rules]");
    expect_error_in("{\"tokenizer\":{\"t\":{\"type\":\"kuromoji_tokenizer\",\"user_dictionary\":\"u.txt\"}}}",
                 TROVE_EUNSUPPORTED, "user_dictionary");
    expect_error_in("{\"tokenizer\":{\"t\":{\"type\":\"kuromoji_tokenizer\",\"nbest_cost\":1000}}}",
                 TROVE_EUNSUPPORTED, "nbest_cost");
    expect_error_in("{\"filter\":{\"f\":{\"type\":\"kuromoji_stemmer\",\"minimum_length\":0}}}", TROVE_EARG,
                 "minimumLength must be >=1");
    expect_error_in("{\"filter\":{\"f\":{\"type\":\"kuromoji_readingform\",\"use_romaji\":\"x\"}}}",
                 TROVE_EARG, "Failed to parse value [x]");
}

static void test_filters(void **state) {
    (void)state;
    /* baseform: inflected verbs and adjectives to their dictionary form */
    tv_analyzer *an = tok_with("{\"type\":\"kuromoji_tokenizer\"}", (const char *[]){"kuromoji_baseform"}, 1);
    jcheck(an, "飲み", (const jt[]){{"飲む", 0, 0, 2, 1}, {NULL, 0, 0, 0, 0}});
    jcheck(an, "美味しかった", (const jt[]){{"美味しい", 0, 0, 5, 1}, {"た", 1, 5, 6, 1}, {NULL, 0, 0, 0, 0}});
    tv_analyzer_free(an);
    /* readingform: katakana readings; unknown words keep their text */
    an = tok_with("{\"type\":\"kuromoji_tokenizer\"}", (const char *[]){"kuromoji_readingform"}, 1);
    jcheck(an, "寿司", (const jt[]){{"スシ", 0, 0, 2, 1}, {NULL, 0, 0, 0, 0}});
    jcheck(an, "アブラカダブラ", (const jt[]){{"アブラカダブラ", 0, 0, 7, 1}, {NULL, 0, 0, 0, 0}});
    tv_analyzer_free(an);
    /* stemmer: a final prolonged sound mark goes from katakana of >= 4 chars */
    an = tok_with("{\"type\":\"kuromoji_tokenizer\"}", (const char *[]){"kuromoji_stemmer"}, 1);
    jcheck(an, "サーバー", (const jt[]){{"サーバ", 0, 0, 4, 1}, {NULL, 0, 0, 0, 0}});
    jcheck(an, "カー", (const jt[]){{"カー", 0, 0, 2, 1}, {NULL, 0, 0, 0, 0}});
    tv_analyzer_free(an);
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"filter\":{\"s\":{\"type\":\"kuromoji_stemmer\",\"minimum_length\":2},"
                         "\"p\":{\"type\":\"kuromoji_part_of_speech\",\"stoptags\":[\"助詞-格助詞-一般\",\"助動詞\"]},"
                         "\"j\":{\"type\":\"ja_stop\",\"stopwords\":[\"寿司\"]}},"
                         "\"analyzer\":{\"a\":{\"tokenizer\":\"kuromoji_tokenizer\",\"filter\":[\"s\"]},"
                         "\"b\":{\"tokenizer\":\"kuromoji_tokenizer\",\"filter\":[\"p\"]},"
                         "\"c\":{\"tokenizer\":\"kuromoji_tokenizer\",\"filter\":[\"j\"]},"
                         "\"d\":{\"tokenizer\":\"kuromoji_tokenizer\",\"filter\":[\"ja_stop\",\"kuromoji_part_of_speech\"]}}}",
                         &err);
    assert_non_null(r);
    jcheck(tv_analysis_get(r, "a", 1), "カー", (const jt[]){{"カ", 0, 0, 2, 1}, {NULL, 0, 0, 0, 0}});
    /* removed tokens leave position gaps */
    jcheck(tv_analysis_get(r, "b", 1), "東京に行った",
           (const jt[]){{"東京", 0, 0, 2, 1}, {"行っ", 2, 3, 5, 1}, {NULL, 0, 0, 0, 0}});
    jcheck(tv_analysis_get(r, "c", 1), "寿司を食べた",
           (const jt[]){{"を", 1, 2, 3, 1}, {"食べ", 2, 3, 5, 1}, {"た", 3, 5, 6, 1}, {NULL, 0, 0, 0, 0}});
    /* defaults: _japanese_ stop words, kuromoji's stoptags */
    jcheck(tv_analysis_get(r, "d", 1), "これは本です",
           (const jt[]){{"本", 2, 3, 4, 1}, {NULL, 0, 0, 0, 0}});
    tv_analysis_free(r);
    /* filters on other tokenizers' tokens (no morphology) leave them alone */
    an = tv_analyzer_compose(NULL, NULL, 0, "whitespace",
                             (const char *[]){"kuromoji_baseform", "kuromoji_readingform", "kuromoji_part_of_speech"},
                             3, NULL, 0, &err);
    jcheck(an, "飲み 寿司", (const jt[]){{"飲み", 0, 0, 2, 1}, {"寿司", 1, 3, 5, 1}, {NULL, 0, 0, 0, 0}});
    tv_analyzer_free(an);
}

static void test_analyzer(void **state) {
    (void)state;
    const tv_analyzer *an = B("kuromoji");
    for (size_t i = 0; i < TV_ARRAY_LEN(analyzer); i++) jcheck(an, analyzer[i].text, analyzer[i].toks);
    /* OpenSearch's YAML test (analysis_kuromoji/10_basic.yml "Analyzer") */
    jcheck(an, "JR新宿駅の近くにビールを飲みに行こうか",
           (const jt[]){{"jr", 0, 0, 2, 1},    {"新宿", 1, 2, 4, 1},   {"駅", 2, 4, 5, 1},
                        {"近く", 4, 6, 8, 1},  {"ビール", 6, 9, 12, 1}, {"飲む", 8, 13, 15, 1},
                        {"行く", 10, 16, 18, 1}, {NULL, 0, 0, 0, 0}});
    /* settings: mode and stopwords */
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"analyzer\":{\"n\":{\"type\":\"kuromoji\",\"mode\":\"normal\",\"stopwords\":[\"空港\"]}}}", &err);
    assert_non_null(r);
    jcheck(tv_analysis_get(r, "n", 1), "関西国際空港に行った",
           (const jt[]){{"関西国際空港", 0, 0, 6, 1}, {"行く", 2, 7, 9, 1}, {NULL, 0, 0, 0, 0}});
    tv_analysis_free(r);
}

/* kuromoji_iteration_mark, expectations from Lucene 4.10's
 * JapaneseIterationMarkCharFilter (read() over each line) */
static void test_iteration_mark(void **state) {
    (void)state;
    static const char *const cases[][2] = {
        {"時々", "時時"}, {"馬鹿々々しい", "馬鹿馬鹿しい"}, {"ところゞゝゝ、", "ところどころ、"},
        {"こゝろ", "こころ"}, {"バナナヾヽ", "バナナナド"}, {"々々", "々々"}, {"a々b", "aab"},
        {"𠮷々", "𠮷々"}, {"日。々", "日。々"}, {"いすゞ", "いすず"}, {"学問のすゝめ", "学問のすすめ"}};
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, NULL, 0, "keyword", NULL, 0,
                                          (const char *[]){"kuromoji_iteration_mark"}, 1, &err);
    assert_non_null(an);
    for (size_t i = 0; i < TV_ARRAY_LEN(cases); i++) {
        int n16 = (int)tv_utf16_len(cases[i][0], strlen(cases[i][0]));
        jcheck(an, cases[i][0], (const jt[]){{cases[i][1], 0, 0, n16, 1}, {NULL, 0, 0, 0, 0}});
    }
    tv_analyzer_free(an);
    /* normalize_kana: false leaves kana marks; the tokenizer sees the result */
    char json[] = "{\"char_filter\":{\"c\":{\"type\":\"kuromoji_iteration_mark\",\"normalize_kana\":false}}}";
    an = tv_analyzer_compose(NULL, json, strlen(json), "keyword", NULL, 0, (const char *[]){"c"}, 1, &err);
    assert_non_null(an);
    jcheck(an, "時々こゝろ", (const jt[]){{"時時こゝろ", 0, 0, 5, 1}, {NULL, 0, 0, 0, 0}});
    tv_analyzer_free(an);
}

/* Last: switches Japanese analysis off for the rest of the process: the
 * kuromoji tokenizer answers 400, the kuromoji analyzer becomes CJK bigrams. */
static void test_disabled(void **state) {
    (void)state;
    tv_ja_disable();
    assert_false(tv_ja_available());
    expect_error_in("{\"tokenizer\":{\"t\":{\"type\":\"kuromoji_tokenizer\"}}}", TROVE_EUNSUPPORTED,
                 "kuromoji_tokenizer");
    expect_error_in("{\"analyzer\":{\"a\":{\"tokenizer\":\"kuromoji_tokenizer\"}}}", TROVE_EUNSUPPORTED,
                 "kuromoji_tokenizer");
    /* the kuromoji analyzer falls back to CJK bigrams (the cjk analyzer;
     * trove serve --no-ja switches off before any analysis, so the bare
     * name's cached analyzer of the earlier tests does not arise there) */
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"analyzer\":{\"a\":{\"type\":\"kuromoji\"}}}", &err);
    assert_non_null(r);
    check(tv_analysis_get(r, "a", 1), "\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd",
          (exp_tok[]){{"\xe6\x9d\xb1\xe4\xba\xac", "<DOUBLE>", 0, 0, 2},
                      {"\xe4\xba\xac\xe9\x83\xbd", "<DOUBLE>", 1, 1, 3}, END});
    tv_analysis_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_available),      cmocka_unit_test(test_search_mode),
        cmocka_unit_test(test_normal_mode),    cmocka_unit_test(test_extended_mode),
        cmocka_unit_test(test_punctuation_and_compounds), cmocka_unit_test(test_user_dictionary),
        cmocka_unit_test(test_errors),         cmocka_unit_test(test_filters),
        cmocka_unit_test(test_analyzer),       cmocka_unit_test(test_iteration_mark),
        cmocka_unit_test(test_disabled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* built without MeCab: every kuromoji name answers unsupported */

static void test_unsupported(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    assert_false(tv_ja_available());
    assert_null(reg("{\"analyzer\":{\"a\":{\"type\":\"kuromoji\"}}}", &err));
    assert_int_equal(err.code, TROVE_EUNSUPPORTED);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_unsupported)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
