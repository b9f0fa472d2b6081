/*
 * tf_hunspell.c — the `hunspell` token filter (Lucene's HunspellStemFilter
 * over a Hunspell dictionary). Not implemented yet: its settings (locale,
 * dedup, longest_only) are read and the filter answers 400 naming itself.
 * OpenSearch loads config/hunspell/<locale>; trove would read Debian's
 * /usr/share/hunspell/<locale>.aff/.dic.
 */
#include "text/text_int.h"

static tv_status hunspell_build(tv_comp *c, const void **out, tv_error *err) {
    if (tv_comp_bare(c)) return tv_comp_requires_settings(err);
    (void)out;
    size_t n;
    const char *locale = tv_comp_str(c, "locale", &n);
    if (!locale) locale = tv_comp_str(c, "language", &n);
    if (!locale) locale = tv_comp_str(c, "lang", &n);
    if (!locale)
        return tv_error_set(err, TROVE_EARG, "missing [locale | language | lang] configuration for hunspell token filter");
    return tv_error_set(err, TROVE_EUNSUPPORTED,
                        "filter [hunspell] is not supported: trove has no Hunspell stemmer yet");
}

const tv_filter_type tv_tf_hunspell = {"hunspell", hunspell_build, NULL};
