/*
 * lang_greek.c — Greek: the `lowercase` filter's `language: greek`
 * (GreekLowerCaseFilter: lower-cases, folds final sigma to sigma and drops
 * the tonos and dialytika of vowels), the Greek stemmer (GreekStemmer, the
 * `stemmer` language "greek"), and the `greek` analyzer as Lucene builds
 * it: standard, Greek lower-casing, stop words (el/stopwords.txt), the
 * stemmer (OpenSearch passes only `stopwords`).
 *
 * The stemmer is Ntais' algorithm as Lucene writes it: twenty "short
 * rules" that strip a suffix and often put part of it back when the stem
 * left is one of a list of exceptions (or ends in a vowel); when none of
 * them changed the word, a long list of inflectional endings; finally the
 * comparative/superlative endings. It expects input lower-cased without
 * accents and with final sigma folded (the filter above). Some of Lucene's
 * conditions group oddly ("len > 6 && a || b || c" tests b and c at any
 * length); they are kept as written, since they decide which words stem.
 */
#include "text/lang_int.h"

/* ----------------------------------------------------------- lowercase */

static uint32_t greek_lower(uint32_t c) {
    switch (c) {
    case 0x03C2: return 0x03C3;
    case 0x0386: case 0x03AC: return 0x03B1;
    case 0x0388: case 0x03AD: return 0x03B5;
    case 0x0389: case 0x03AE: return 0x03B7;
    case 0x038A: case 0x03AA: case 0x03AF: case 0x03CA: case 0x0390: return 0x03B9;
    case 0x038E: case 0x03AB: case 0x03CD: case 0x03CB: case 0x03B0: return 0x03C5;
    case 0x038C: case 0x03CC: return 0x03BF;
    case 0x038F: case 0x03CE: return 0x03C9;
    case 0x03A2: return 0x03C2;
    default: return tv_uc_lower(c);
    }
}

static tv_status greek_lower_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        char *o = tv_arena_alloc(a, (size_t)t->term_len * 3 + 4); /* U+FFFD for invalid bytes */
        if (!o) return TROVE_ENOMEM;
        const uint8_t *p = (const uint8_t *)t->term, *end = p + t->term_len;
        size_t w = 0;
        while (p < end) {
            uint32_t cp;
            p += tv_utf8_decode(p, end, &cp);
            w += tv_utf8_encode(greek_lower(cp), (uint8_t *)o + w);
        }
        o[w] = 0;
        t->term = o;
        t->term_len = (uint32_t)w;
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_greek_lowercase = {"(greek_lowercase)", NULL, greek_lower_apply};

/* ------------------------------------------------------------- stemmer */

#define E(x) tv_u16_ends(s, len, x)

static bool vowel(const char16_t *s, int len) {
    if (len == 0) return false;
    switch (s[len - 1]) {
    case u'α': case u'ε': case u'η': case u'ι': case u'ο': case u'υ': case u'ω': return true;
    default: return false;
    }
}
static bool vowel_no_y(const char16_t *s, int len) {
    return vowel(s, len) && s[len - 1] != u'υ';
}

/* Whether s[0..len) is one of the NULL-terminated list's words. */
static bool is_one(const char16_t *s, int len, const char16_t *const *l) {
    for (; *l; l++) {
        int n = 0;
        while ((*l)[n]) n++;
        if (n == len && memcmp(s, *l, (size_t)n * sizeof *s) == 0) return true;
    }
    return false;
}
/* Whether s[0..len) ends with one of the list's suffixes. */
static bool ends_any(const char16_t *s, int len, const char16_t *const *l) {
    for (; *l; l++)
        if (tv_u16_ends(s, len, *l)) return true;
    return false;
}

static int rule0(char16_t *s, int len) {
    if (len > 9 && (E(u"καθεστωτοσ") || E(u"καθεστωτων"))) return len - 4;
    if (len > 8 && (E(u"γεγονοτοσ") || E(u"γεγονοτων"))) return len - 4;
    if (len > 8 && E(u"καθεστωτα")) return len - 3;
    if (len > 7 && (E(u"τατογιου") || E(u"τατογιων"))) return len - 4;
    if (len > 7 && E(u"γεγονοτα")) return len - 3;
    if (len > 7 && E(u"καθεστωσ")) return len - 2;
    if ((len > 6 && E(u"σκαγιου")) || E(u"σκαγιων") || E(u"ολογιου") || E(u"ολογιων") ||
        E(u"κρεατοσ") || E(u"κρεατων") || E(u"περατοσ") || E(u"περατων") || E(u"τερατοσ") ||
        E(u"τερατων"))
        return len - 4;
    if (len > 6 && E(u"τατογια")) return len - 3;
    if (len > 6 && E(u"γεγονοσ")) return len - 2;
    if (len > 5 && (E(u"φαγιου") || E(u"φαγιων") || E(u"σογιου") || E(u"σογιων"))) return len - 4;
    if (len > 5 && (E(u"σκαγια") || E(u"ολογια") || E(u"κρεατα") || E(u"περατα") || E(u"τερατα")))
        return len - 3;
    if (len > 4 && (E(u"φαγια") || E(u"σογια") || E(u"φωτοσ") || E(u"φωτων"))) return len - 3;
    if (len > 4 && (E(u"κρεασ") || E(u"περασ") || E(u"τερασ"))) return len - 2;
    if (len > 3 && E(u"φωτα")) return len - 2;
    if (len > 2 && E(u"φωσ")) return len - 1;
    return len;
}

static int rule1(char16_t *s, int len) {
    static const char16_t *const keep[] = {u"οκ", u"μαμ", u"μαν", u"μπαμπ", u"πατερ", u"γιαγι",
                                           u"νταντ", u"κυρ", u"θει", u"πεθερ", NULL};
    if (len > 4 && (E(u"αδεσ") || E(u"αδων"))) {
        len -= 4;
        if (!ends_any(s, len, keep)) len += 2;
    }
    return len;
}

static int rule2(char16_t *s, int len) {
    static const char16_t *const back[] = {u"οπ", u"ιπ", u"εμπ", u"υπ", u"γηπ", u"δαπ", u"κρασπ", u"μιλ", NULL};
    if (len > 4 && (E(u"εδεσ") || E(u"εδων"))) {
        len -= 4;
        if (ends_any(s, len, back)) len += 2;
    }
    return len;
}

static int rule3(char16_t *s, int len) {
    static const char16_t *const back[] = {u"αρκ", u"καλιακ", u"πεταλ", u"λιχ", u"πλεξ", u"σκ",
                                           u"σ",   u"φλ",     u"φρ",    u"βελ", u"λουλ", u"χν",
                                           u"σπ",  u"τραγ",   u"φε",    NULL};
    if (len > 5 && (E(u"ουδεσ") || E(u"ουδων"))) {
        len -= 5;
        if (ends_any(s, len, back)) len += 3;
    }
    return len;
}

static int rule4(char16_t *s, int len) {
    static const char16_t *const exc[] = {u"θ", u"δ", u"ελ", u"γαλ", u"ν", u"π", u"ιδ", u"παρ", NULL};
    if (len > 3 && (E(u"εωσ") || E(u"εων"))) {
        len -= 3;
        if (is_one(s, len, exc)) len++;
    }
    return len;
}

static int rule5(char16_t *s, int len) {
    if (len > 2 && E(u"ια")) {
        len -= 2;
        if (vowel(s, len)) len++;
    } else if (len > 3 && (E(u"ιου") || E(u"ιων"))) {
        len -= 3;
        if (vowel(s, len)) len++;
    }
    return len;
}

static int rule6(char16_t *s, int len) {
    static const char16_t *const exc[] = {
        u"αλ", u"αδ", u"ενδ", u"αμαν", u"αμμοχαλ", u"ηθ", u"ανηθ", u"αντιδ", u"φυσ", u"βρωμ",
        u"γερ", u"εξωδ", u"καλπ", u"καλλιν", u"καταδ", u"μουλ", u"μπαν", u"μπαγιατ", u"μπολ",
        u"μποσ", u"νιτ", u"ξικ", u"συνομηλ", u"πετσ", u"πιτσ", u"πικαντ", u"πλιατσ", u"ποστελν",
        u"πρωτοδ", u"σερτ", u"συναδ", u"τσαμ", u"υποδ", u"φιλον", u"φυλοδ", u"χασ", NULL};
    bool removed = false;
    if (len > 3 && (E(u"ικα") || E(u"ικο"))) {
        len -= 3;
        removed = true;
    } else if (len > 4 && (E(u"ικου") || E(u"ικων"))) {
        len -= 4;
        removed = true;
    }
    if (removed && (vowel(s, len) || is_one(s, len, exc))) len += 2;
    return len;
}

static int rule7(char16_t *s, int len) {
    static const char16_t *const exc[] = {u"αναπ", u"αποθ", u"αποκ", u"αποστ", u"βουβ", u"ξεθ",
                                          u"ουλ",  u"πεθ",  u"πικρ", u"ποτ",   u"σιχ",  u"χ", NULL};
    if (len == 5 && E(u"αγαμε")) return len - 1;
    if (len > 7 && E(u"ηθηκαμε")) len -= 7;
    else if (len > 6 && E(u"ουσαμε")) len -= 6;
    else if (len > 5 && (E(u"αγαμε") || E(u"ησαμε") || E(u"ηκαμε"))) len -= 5;
    if (len > 3 && E(u"αμε")) {
        len -= 3;
        if (is_one(s, len, exc)) len += 2;
    }
    return len;
}

static int rule8(char16_t *s, int len) {
    static const char16_t *const exc_a[] = {u"τρ", u"τσ", NULL};
    static const char16_t *const exc_b[] = {
        u"βετερ", u"βουλκ", u"βραχμ", u"γ", u"δραδουμ", u"θ", u"καλπουζ", u"καστελ", u"κορμορ",
        u"λαοπλ", u"μωαμεθ", u"μ", u"μουσουλμ", u"ν", u"ουλ", u"π", u"πελεκ", u"πλ", u"πολισ",
        u"πορτολ", u"σαρακατσ", u"σουλτ", u"τσαρλατ", u"ορφ", u"τσιγγ", u"τσοπ", u"φωτοστεφ",
        u"χ", u"ψυχοπλ", u"αγ", u"ορφ", u"γαλ", u"γερ", u"δεκ", u"διπλ", u"αμερικαν", u"ουρ",
        u"πιθ", u"πουριτ", u"σ", u"ζωντ", u"ικ", u"καστ", u"κοπ", u"λιχ", u"λουθηρ", u"μαιντ",
        u"μελ", u"σιγ", u"σπ", u"στεγ", u"τραγ", u"τσαγ", u"φ", u"ερ", u"αδαπ", u"αθιγγ",
        u"αμηχ", u"ανικ", u"ανοργ", u"απηγ", u"απιθ", u"ατσιγγ", u"βασ", u"βασκ", u"βαθυγαλ",
        u"βιομηχ", u"βραχυκ", u"διατ", u"διαφ", u"ενοργ", u"θυσ", u"καπνοβιομηχ", u"καταγαλ",
        u"κλιβ", u"κοιλαρφ", u"λιβ", u"μεγλοβιομηχ", u"μικροβιομηχ", u"νταβ", u"ξηροκλιβ",
        u"ολιγοδαμ", u"ολογαλ", u"πενταρφ", u"περηφ", u"περιτρ", u"πλατ", u"πολυδαπ",
        u"πολυμηχ", u"στεφ", u"ταβ", u"τετ", u"υπερηφ", u"υποκοπ", u"χαμηλοδαπ", u"ψηλοταβ",
        NULL};
    bool removed = false;
    if (len > 8 && E(u"ιουντανε")) {
        len -= 8;
        removed = true;
    } else if ((len > 7 && E(u"ιοντανε")) || E(u"ουντανε") || E(u"ηθηκανε")) {
        len -= 7;
        removed = true;
    } else if ((len > 6 && E(u"ιοτανε")) || E(u"οντανε") || E(u"ουσανε")) {
        len -= 6;
        removed = true;
    } else if ((len > 5 && E(u"αγανε")) || E(u"ησανε") || E(u"οτανε") || E(u"ηκανε")) {
        len -= 5;
        removed = true;
    }
    if (removed && is_one(s, len, exc_a)) {
        len += 4;
        s[len - 4] = u'α';
        s[len - 3] = u'γ';
        s[len - 2] = u'α';
        s[len - 1] = u'ν';
    }
    if (len > 3 && E(u"ανε")) {
        len -= 3;
        if (vowel_no_y(s, len) || is_one(s, len, exc_b)) len += 2;
    }
    return len;
}

static int rule9(char16_t *s, int len) {
    static const char16_t *const exc[] = {
        u"αβαρ", u"βεν", u"εναρ", u"αβρ", u"αδ", u"αθ", u"αν", u"απλ", u"βαρον", u"ντρ", u"σκ",
        u"κοπ", u"μπορ", u"νιφ", u"παγ", u"παρακαλ", u"σερπ", u"σκελ", u"συρφ", u"τοκ", u"υ",
        u"δ", u"εμ", u"θαρρ", u"θ", NULL};
    static const char16_t *const back[] = {
        u"οδ", u"αιρ", u"φορ", u"ταθ", u"διαθ", u"σχ", u"ενδ", u"ευρ", u"τιθ", u"υπερθ", u"ραθ",
        u"ενθ", u"ροθ", u"σθ", u"πυρ", u"αιν", u"συνδ", u"συν", u"συνθ", u"χωρ", u"πον", u"βρ",
        u"καθ", u"ευθ", u"εκθ", u"νετ", u"ρον", u"αρκ", u"βαρ", u"βολ", u"ωφελ", NULL};
    if (len > 5 && E(u"ησετε")) len -= 5;
    if (len > 3 && E(u"ετε")) {
        len -= 3;
        if (is_one(s, len, exc) || vowel_no_y(s, len) || ends_any(s, len, back)) len += 2;
    }
    return len;
}

static int rule10(char16_t *s, int len) {
    if (len > 5 && (E(u"οντασ") || E(u"ωντασ"))) {
        len -= 5;
        if (len == 3 && E(u"αρχ")) {
            len += 3;
            s[len - 3] = u'ο';
        }
        if (E(u"κρε")) {
            len += 3;
            s[len - 3] = u'ω';
        }
    }
    return len;
}

static int rule11(char16_t *s, int len) {
    if (len > 6 && E(u"ομαστε")) {
        len -= 6;
        if (len == 2 && E(u"ον")) len += 5;
    } else if (len > 7 && E(u"ιομαστε")) {
        len -= 7;
        if (len == 2 && E(u"ον")) {
            len += 5;
            s[len - 5] = u'ο';
            s[len - 4] = u'μ';
            s[len - 3] = u'α';
            s[len - 2] = u'σ';
            s[len - 1] = u'τ';
        }
    }
    return len;
}

static int rule12(char16_t *s, int len) {
    static const char16_t *const a[] = {u"π", u"απ", u"συμπ", u"ασυμπ", u"ακαταπ", u"αμεταμφ", NULL};
    static const char16_t *const b[] = {u"αλ", u"αρ", u"εκτελ", u"ζ", u"μ", u"ξ", u"παρακαλ", u"αρ", u"προ", u"νισ", NULL};
    if (len > 5 && E(u"ιεστε")) {
        len -= 5;
        if (is_one(s, len, a)) len += 4;
    }
    if (len > 4 && E(u"εστε")) {
        len -= 4;
        if (is_one(s, len, b)) len += 3;
    }
    return len;
}

static int rule13(char16_t *s, int len) {
    static const char16_t *const exc[] = {u"διαθ", u"θ", u"παρακαταθ", u"προσθ", u"συνθ", NULL};
    static const char16_t *const back[] = {u"σκωλ", u"σκουλ", u"ναρθ", u"σφ", u"οθ", u"πιθ", NULL};
    if (len > 6 && E(u"ηθηκεσ")) len -= 6;
    else if (len > 5 && (E(u"ηθηκα") || E(u"ηθηκε"))) len -= 5;
    bool removed = false;
    if (len > 4 && E(u"ηκεσ")) {
        len -= 4;
        removed = true;
    } else if (len > 3 && (E(u"ηκα") || E(u"ηκε"))) {
        len -= 3;
        removed = true;
    }
    if (removed && (is_one(s, len, exc) || ends_any(s, len, back))) len += 2;
    return len;
}

static int rule14(char16_t *s, int len) {
    static const char16_t *const exc[] = {
        u"φαρμακ", u"χαδ", u"αγκ", u"αναρρ", u"βρομ", u"εκλιπ", u"λαμπιδ", u"λεχ", u"μ", u"πατ",
        u"ρ", u"λ", u"μεδ", u"μεσαζ", u"υποτειν", u"αμ", u"αιθ", u"ανηκ", u"δεσποζ",
        u"ενδιαφερ", u"δε", u"δευτερευ", u"καθαρευ", u"πλε", u"τσα", NULL};
    static const char16_t *const back[] = {u"ποδαρ", u"βλεπ", u"πανταχ", u"φρυδ", u"μαντιλ",
                                           u"μαλλ",  u"κυματ", u"λαχ",   u"ληγ",  u"φαγ",
                                           u"ομ",    u"πρωτ",  NULL};
    bool removed = false;
    if (len > 5 && E(u"ουσεσ")) {
        len -= 5;
        removed = true;
    } else if (len > 4 && (E(u"ουσα") || E(u"ουσε"))) {
        len -= 4;
        removed = true;
    }
    if (removed && (is_one(s, len, exc) || vowel(s, len) || ends_any(s, len, back))) len += 3;
    return len;
}

static int rule15(char16_t *s, int len) {
    static const char16_t *const a[] = {
        u"αβαστ", u"πολυφ", u"αδηφ", u"παμφ", u"ρ", u"ασπ", u"αφ", u"αμαλ", u"αμαλλι", u"ανυστ",
        u"απερ", u"ασπαρ", u"αχαρ", u"δερβεν", u"δροσοπ", u"ξεφ", u"νεοπ", u"νομοτ", u"ολοπ",
        u"ομοτ", u"προστ", u"προσωποπ", u"συμπ", u"συντ", u"τ", u"υποτ", u"χαρ", u"αειπ",
        u"αιμοστ", u"ανυπ", u"αποτ", u"αρτιπ", u"διατ", u"εν", u"επιτ", u"κροκαλοπ",
        u"σιδηροπ", u"λ", u"ναυ", u"ουλαμ", u"ουρ", u"π", u"τρ", u"μ", NULL};
    static const char16_t *const a_end[] = {u"οφ", u"πελ", u"χορτ", u"λλ", u"σφ", u"ρπ",
                                            u"φρ", u"πρ",  u"λοχ",  u"σμην", NULL};
    static const char16_t *const b[] = {u"ψοφ", u"ναυλοχ", NULL};
    bool removed = false;
    if (len > 4 && E(u"αγεσ")) {
        len -= 4;
        removed = true;
    } else if (len > 3 && (E(u"αγα") || E(u"αγε"))) {
        len -= 3;
        removed = true;
    }
    if (removed) {
        bool c1 = is_one(s, len, a) || ends_any(s, len, a_end);
        bool c2 = is_one(s, len, b) || E(u"κολλ");
        if (c1 && !c2) len += 2;
    }
    return len;
}

static int rule16(char16_t *s, int len) {
    static const char16_t *const exc[] = {u"ν", u"χερσον", u"δωδεκαν", u"ερημον", u"μεγαλον", u"επταν", NULL};
    bool removed = false;
    if (len > 4 && E(u"ησου")) {
        len -= 4;
        removed = true;
    } else if (len > 3 && (E(u"ησε") || E(u"ησα"))) {
        len -= 3;
        removed = true;
    }
    if (removed && is_one(s, len, exc)) len += 2;
    return len;
}

static int rule17(char16_t *s, int len) {
    static const char16_t *const exc[] = {u"ασβ", u"σβ", u"αχρ", u"χρ", u"απλ", u"αειμν",
                                          u"δυσχρ", u"ευχρ", u"κοινοχρ", u"παλιμψ", NULL};
    if (len > 4 && E(u"ηστε")) {
        len -= 4;
        if (is_one(s, len, exc)) len += 3;
    }
    return len;
}

static int rule18(char16_t *s, int len) {
    static const char16_t *const exc[] = {u"ν", u"ρ", u"σπι", u"στραβομουτσ", u"κακομουτσ", u"εξων", NULL};
    bool removed = false;
    if (len > 6 && (E(u"ησουνε") || E(u"ηθουνε"))) {
        len -= 6;
        removed = true;
    } else if (len > 4 && E(u"ουνε")) {
        len -= 4;
        removed = true;
    }
    if (removed && is_one(s, len, exc)) {
        len += 3;
        s[len - 3] = u'ο';
        s[len - 2] = u'υ';
        s[len - 1] = u'ν';
    }
    return len;
}

static int rule19(char16_t *s, int len) {
    static const char16_t *const exc[] = {u"παρασουσ", u"φ", u"χ", u"ωριοπλ", u"αζ", u"αλλοσουσ", u"ασουσ", NULL};
    bool removed = false;
    if (len > 6 && (E(u"ησουμε") || E(u"ηθουμε"))) {
        len -= 6;
        removed = true;
    } else if (len > 4 && E(u"ουμε")) {
        len -= 4;
        removed = true;
    }
    if (removed && is_one(s, len, exc)) {
        len += 3;
        s[len - 3] = u'ο';
        s[len - 2] = u'υ';
        s[len - 1] = u'μ';
    }
    return len;
}

static int rule20(char16_t *s, int len) {
    if (len > 5 && (E(u"ματων") || E(u"ματοσ"))) len -= 3;
    else if (len > 4 && E(u"ματα")) len -= 2;
    return len;
}

static int rule21(char16_t *s, int len) {
    static const char16_t *const l8[] = {u"ιομασταν", u"ιοσασταν", u"ιουμαστε", u"οντουσαν", NULL};
    static const char16_t *const l7[] = {u"ιεμαστε", u"ιεσαστε", u"ιομουνα", u"ιοσαστε",
                                         u"ιοσουνα", u"ιουνται", u"ιουνταν", u"ηθηκατε",
                                         u"ομασταν", u"οσασταν", u"ουμαστε", NULL};
    static const char16_t *const l6[] = {u"ιομουν", u"ιονταν", u"ιοσουν", u"ηθειτε",
                                         u"ηθηκαν", u"ομουνα", u"οσαστε", u"οσουνα",
                                         u"ουνται", u"ουνταν", u"ουσατε", NULL};
    static const char16_t *const l5[] = {u"αγατε", u"ιεμαι", u"ιεται", u"ιεσαι", u"ιοταν",
                                         u"ιουμα", u"ηθεισ", u"ηθουν", u"ηκατε", u"ησατε",
                                         u"ησουν", u"ομουν", u"ονται", u"ονταν", u"οσουν",
                                         u"ουμαι", u"ουσαν", NULL};
    static const char16_t *const l4[] = {u"αγαν", u"αμαι", u"ασαι", u"αται", u"ειτε", u"εσαι",
                                         u"εται", u"ηδεσ", u"ηδων", u"ηθει", u"ηκαν", u"ησαν",
                                         u"ησει", u"ησεσ", u"ομαι", u"οταν", NULL};
    static const char16_t *const l3[] = {u"αει", u"εισ", u"ηθω", u"ησω", u"ουν", u"ουσ", NULL};
    static const char16_t *const l2[] = {u"αν", u"ασ", u"αω", u"ει", u"εσ", u"ησ",
                                         u"οι", u"οσ", u"ου", u"υσ", u"ων", NULL};
    if (len > 9 && E(u"ιοντουσαν")) return len - 9;
    if (len > 8 && ends_any(s, len, l8)) return len - 8;
    if (len > 7 && ends_any(s, len, l7)) return len - 7;
    if (len > 6 && ends_any(s, len, l6)) return len - 6;
    if (len > 5 && ends_any(s, len, l5)) return len - 5;
    if (len > 4 && ends_any(s, len, l4)) return len - 4;
    if (len > 3 && ends_any(s, len, l3)) return len - 3;
    if (len > 2 && ends_any(s, len, l2)) return len - 2;
    if (len > 1 && vowel(s, len)) return len - 1;
    return len;
}

static int rule22(char16_t *s, int len) {
    if (E(u"εστερ") || E(u"εστατ")) return len - 5;
    if (E(u"οτερ") || E(u"οτατ") || E(u"υτερ") || E(u"υτατ") || E(u"ωτερ") || E(u"ωτατ"))
        return len - 4;
    return len;
}

#undef E

static int greek_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap; /* rules put back at most what they took: len never exceeds the input's */
    if (len < 4) return len;
    int orig = len;
    len = rule0(s, len);
    len = rule1(s, len);
    len = rule2(s, len);
    len = rule3(s, len);
    len = rule4(s, len);
    len = rule5(s, len);
    len = rule6(s, len);
    len = rule7(s, len);
    len = rule8(s, len);
    len = rule9(s, len);
    len = rule10(s, len);
    len = rule11(s, len);
    len = rule12(s, len);
    len = rule13(s, len);
    len = rule14(s, len);
    len = rule15(s, len);
    len = rule16(s, len);
    len = rule17(s, len);
    len = rule18(s, len);
    len = rule19(s, len);
    len = rule20(s, len);
    if (len == orig) len = rule21(s, len);
    return rule22(s, len);
}

static tv_status greek_stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, greek_rule, cfg);
}

const tv_filter_type tv_tf_greek_stem = {"(greek_stem)", NULL, greek_stem_apply};

/* ------------------------------------------------------------ analyzer */

static tv_status greek_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    tv_status st;
    tv_lang_standard(p);
    tv_lang_add_ext(p, &tv_tf_greek_lowercase, NULL);
    if ((st = tv_lang_stop(c, p, tv_words_greek(), "el/stopwords.txt", err))) return st;
    tv_lang_add_ext(p, &tv_tf_greek_stem, NULL);
    return TROVE_OK;
}

const tv_analyzer_type tv_an_greek = {"greek", greek_build};
