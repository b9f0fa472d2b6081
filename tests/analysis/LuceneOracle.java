/*
 * LuceneOracle.java — the reference side of tests/analysis/compare.py: Lucene 4.10 (Debian's
 * liblucene4.10-java) analysing text the way OpenSearch's `_analyze` API would, so trove's answers
 * can be compared token by token.
 *
 * Protocol (one JSON object per line on stdin, one per line on stdout, same order):
 *   in:  {"id": ..., "spec": SPEC, "text": "..."}
 *   out: {"id": ..., "tokens": [{"token","start_offset","end_offset","type","position"
 *                                 [,"positionLength" when > 1]}, ...]}
 *        {"id": ..., "error": "..."}           (the spec cannot be built or the analysis failed)
 *        {"id": ..., "no_oracle": "..."}       (OpenSearch has it, Lucene 4.10 does not)
 * SPEC is the body of `_analyze` without "text": {"analyzer": NAME-or-DEFINITION} or
 * {"tokenizer": NAME-or-DEFINITION, "filter": [...], "char_filter": [...]}, each definition an
 * object with "type" and OpenSearch's parameter names.
 *
 * Timing mode: `LuceneOracle --bench RUNS WARMUP [cpu]` reads the same lines, groups the texts by id (one
 * id = one analyzer; an optional "repeat": K on a line makes each pass go K times over the id's
 * texts), and for each id makes WARMUP passes, then RUNS timed passes (a tokenStream loop: reset,
 * incrementToken until false, end, close), printing {"id", "bytes" (UTF-8 per pass), "tokens",
 * "median_s"} per id ("cpu": passes timed by the thread's CPU clock, for a shared machine).
 *
 * Design: analyzers are built as OpenSearch 3.x's providers and factories build them
 * (modules/analysis-common and the analysis-* plugins): language analyzers get Lucene's default
 * stop set unless "stopwords" is given and an empty stem exclusion set unless "stem_exclusion" is;
 * `standard` has no stop words; `pattern` is OpenSearch's PatternAnalyzer (\W+, lower-cased).
 * Components are constructed directly (not through the SPI) so each OpenSearch parameter maps
 * visibly to its Lucene argument. Positions follow OpenSearch's AnalyzeAction: the sum of
 * position increments minus one. Offsets are Lucene's (UTF-16 code units). JSON is read and
 * written by the small reader below (no jar besides Lucene's and ICU4J). Components that exist
 * only in later Lucene versions answer "no_oracle" naming themselves; nothing is emulated except
 * OpenSearch's own `unique` filter (which is OpenSearch code, not Lucene's, in 3.x as well).
 */
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.regex.Pattern;

import org.apache.lucene.analysis.*;
import org.apache.lucene.analysis.tokenattributes.*;
import org.apache.lucene.analysis.util.CharArraySet;
import org.apache.lucene.analysis.core.*;
import org.apache.lucene.analysis.standard.*;
import org.apache.lucene.analysis.miscellaneous.*;
import org.apache.lucene.analysis.ngram.*;
import org.apache.lucene.analysis.pattern.*;
import org.apache.lucene.analysis.path.*;
import org.apache.lucene.analysis.shingle.ShingleFilter;
import org.apache.lucene.analysis.snowball.SnowballFilter;
import org.apache.lucene.analysis.synonym.*;
import org.apache.lucene.analysis.charfilter.*;
import org.apache.lucene.analysis.cjk.*;
import org.apache.lucene.analysis.th.ThaiTokenizer;
import org.apache.lucene.analysis.en.*;
import org.apache.lucene.analysis.util.ElisionFilter;
import org.apache.lucene.analysis.reverse.ReverseStringFilter;
import org.apache.lucene.util.Version;

public class LuceneOracle {
    static final Version V = Version.LUCENE_4_10_4;

    /* ---------------------------------------------------------------- JSON */

    static final class Json {
        final String s;
        int i;
        Json(String s) { this.s = s; }
        static Object parse(String s) {
            Json j = new Json(s);
            Object v = j.value();
            j.ws();
            if (j.i != s.length()) throw new IllegalArgumentException("trailing JSON");
            return v;
        }
        void ws() { while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++; }
        Object value() {
            ws();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++; ws();
                if (s.charAt(i) == '}') { i++; return m; }
                for (;;) {
                    ws();
                    String k = str();
                    ws(); expect(':');
                    m.put(k, value());
                    ws();
                    if (s.charAt(i) == ',') { i++; continue; }
                    expect('}');
                    return m;
                }
            }
            if (c == '[') {
                List<Object> l = new ArrayList<>();
                i++; ws();
                if (s.charAt(i) == ']') { i++; return l; }
                for (;;) {
                    l.add(value());
                    ws();
                    if (s.charAt(i) == ',') { i++; continue; }
                    expect(']');
                    return l;
                }
            }
            if (c == '"') return str();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int st = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            if (st == i) throw new IllegalArgumentException("bad JSON at " + i);
            String n = s.substring(st, i);
            if (n.contains(".") || n.contains("e") || n.contains("E")) return Double.parseDouble(n);
            return Long.parseLong(n);
        }
        void expect(char c) {
            if (s.charAt(i) != c) throw new IllegalArgumentException("expected " + c + " at " + i);
            i++;
        }
        String str() {
            expect('"');
            StringBuilder b = new StringBuilder();
            for (;;) {
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c != '\\') { b.append(c); continue; }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 't': b.append('\t'); break;
                    case 'r': b.append('\r'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: b.append(e);
                }
            }
        }
        static void quote(StringBuilder b, String v) {
            b.append('"');
            for (int k = 0; k < v.length(); k++) {
                char c = v.charAt(k);
                switch (c) {
                    case '"': b.append("\\\""); break;
                    case '\\': b.append("\\\\"); break;
                    case '\n': b.append("\\n"); break;
                    case '\r': b.append("\\r"); break;
                    case '\t': b.append("\\t"); break;
                    default:
                        if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                        else b.append(c);
                }
            }
            b.append('"');
        }
        static void write(StringBuilder b, Object v) {
            if (v == null) b.append("null");
            else if (v instanceof String) quote(b, (String) v);
            else if (v instanceof Map) {
                b.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    if (!first) b.append(',');
                    first = false;
                    quote(b, (String) e.getKey());
                    b.append(':');
                    write(b, e.getValue());
                }
                b.append('}');
            } else if (v instanceof List) {
                b.append('[');
                boolean first = true;
                for (Object o : (List<?>) v) {
                    if (!first) b.append(',');
                    first = false;
                    write(b, o);
                }
                b.append(']');
            } else b.append(v.toString());
        }
    }

    /* ------------------------------------------------------------ errors */

    /** OpenSearch has the component; Lucene 4.10 has no equivalent to compare against. */
    static final class NoOracle extends RuntimeException {
        NoOracle(String m) { super(m); }
    }

    /* ------------------------------------------------------- parameters */

    static final class P {
        final String kind;
        final Map<String, Object> m;
        final Set<String> used = new HashSet<>();
        P(String kind, Map<String, Object> m) { this.kind = kind; this.m = m; used.add("type"); }
        boolean has(String k) { return m.containsKey(k); }
        Object raw(String k) { used.add(k); return m.get(k); }
        String str(String k, String def) { Object v = raw(k); return v == null ? def : v.toString(); }
        int i(String k, int def) {
            Object v = raw(k);
            if (v == null) return def;
            return v instanceof Number ? ((Number) v).intValue() : Integer.parseInt(v.toString());
        }
        boolean b(String k, boolean def) {
            Object v = raw(k);
            if (v == null) return def;
            return v instanceof Boolean ? (Boolean) v : Boolean.parseBoolean(v.toString());
        }
        List<String> list(String k) {
            Object v = raw(k);
            if (v == null) return null;
            List<String> out = new ArrayList<>();
            if (v instanceof List) for (Object o : (List<?>) v) out.add(o.toString());
            else for (String s : v.toString().split(",")) out.add(s.trim());
            return out;
        }
        /** Lines of a *_path file or the inline list under k. */
        List<String> listOrPath(String k) throws IOException {
            List<String> l = list(k);
            if (l != null) return l;
            String path = str(k + "_path", null);
            if (path == null) return null;
            List<String> out = new ArrayList<>();
            for (String line : Files.readAllLines(Paths.get(path), StandardCharsets.UTF_8)) {
                if (line.isEmpty() || line.startsWith("#")) continue;
                out.add(line);
            }
            return out;
        }
        void done() {
            for (String k : m.keySet())
                if (!used.contains(k))
                    throw new IllegalArgumentException("oracle: unknown parameter [" + k + "] of " + kind);
        }
    }

    static P params(Object def, String what) {
        if (def instanceof String) return new P((String) def, new HashMap<>());
        @SuppressWarnings("unchecked") Map<String, Object> m = (Map<String, Object>) def;
        Object t = m.get("type");
        if (t == null) throw new IllegalArgumentException(what + " definition without type");
        return new P(t.toString(), m);
    }

    /** OpenSearch's Analysis.parseStopWords: a _lang_ name, a list, or _none_. */
    static CharArraySet words(P p, String key, CharArraySet def, boolean ignoreCase) throws IOException {
        List<String> l = p.listOrPath(key);
        if (l == null) return def;
        if (l.size() == 1 && l.get(0).startsWith("_") && l.get(0).endsWith("_")) return namedStops(l.get(0));
        return new CharArraySet(V, l, ignoreCase);
    }

    static final Map<String, String> LANG_CLASS = new LinkedHashMap<>();
    static {
        String[][] t = {
            {"arabic", "ar.ArabicAnalyzer"}, {"armenian", "hy.ArmenianAnalyzer"}, {"basque", "eu.BasqueAnalyzer"},
            {"brazilian", "br.BrazilianAnalyzer"}, {"bulgarian", "bg.BulgarianAnalyzer"},
            {"catalan", "ca.CatalanAnalyzer"}, {"cjk", "cjk.CJKAnalyzer"}, {"czech", "cz.CzechAnalyzer"},
            {"danish", "da.DanishAnalyzer"}, {"dutch", "nl.DutchAnalyzer"}, {"english", "en.EnglishAnalyzer"},
            {"finnish", "fi.FinnishAnalyzer"}, {"french", "fr.FrenchAnalyzer"}, {"galician", "gl.GalicianAnalyzer"},
            {"german", "de.GermanAnalyzer"}, {"greek", "el.GreekAnalyzer"}, {"hindi", "hi.HindiAnalyzer"},
            {"hungarian", "hu.HungarianAnalyzer"}, {"indonesian", "id.IndonesianAnalyzer"},
            {"irish", "ga.IrishAnalyzer"}, {"italian", "it.ItalianAnalyzer"}, {"latvian", "lv.LatvianAnalyzer"},
            {"norwegian", "no.NorwegianAnalyzer"}, {"persian", "fa.PersianAnalyzer"},
            {"portuguese", "pt.PortugueseAnalyzer"}, {"romanian", "ro.RomanianAnalyzer"},
            {"russian", "ru.RussianAnalyzer"}, {"sorani", "ckb.SoraniAnalyzer"}, {"spanish", "es.SpanishAnalyzer"},
            {"swedish", "sv.SwedishAnalyzer"}, {"turkish", "tr.TurkishAnalyzer"}, {"thai", "th.ThaiAnalyzer"},
            {"polish", "pl.PolishAnalyzer"},
        };
        for (String[] r : t) LANG_CLASS.put(r[0], "org.apache.lucene.analysis." + r[1]);
    }

    static CharArraySet defaultStops(String lang) {
        try {
            return (CharArraySet) Class.forName(LANG_CLASS.get(lang)).getMethod("getDefaultStopSet").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** OpenSearch's named stop word lists (_english_, _french_, ...; _none_). */
    static CharArraySet namedStops(String name) {
        String lang = name.substring(1, name.length() - 1);
        if (lang.equals("none")) return CharArraySet.EMPTY_SET;
        if (lang.equals("english")) return StopAnalyzer.ENGLISH_STOP_WORDS_SET;
        if (lang.equals("japanese")) return org.apache.lucene.analysis.ja.JapaneseAnalyzer.getDefaultStopSet();
        if (lang.equals("estonian") || lang.equals("lithuanian") || lang.equals("bengali"))
            throw new NoOracle("stop words _" + lang + "_ (not in Lucene 4.10)");
        if (!LANG_CLASS.containsKey(lang)) throw new IllegalArgumentException("unknown stop words " + name);
        return defaultStops(lang);
    }

    /* ---------------------------------------------------------- analyzers */

    static Analyzer analyzer(Object def) throws Exception {
        P p = params(def, "analyzer");
        String t = p.kind;
        Analyzer a;
        switch (t) {
            case "standard": {
                StandardAnalyzer sa = new StandardAnalyzer(words(p, "stopwords", CharArraySet.EMPTY_SET, false));
                sa.setMaxTokenLength(p.i("max_token_length", 255));
                a = sa;
                break;
            }
            case "simple": a = new SimpleAnalyzer(); break;
            case "whitespace": a = new WhitespaceAnalyzer(); break;
            case "keyword": a = new KeywordAnalyzer(); break;
            case "stop": a = new StopAnalyzer(words(p, "stopwords", StopAnalyzer.ENGLISH_STOP_WORDS_SET, false)); break;
            case "pattern": {
                final Pattern pat = Pattern.compile(p.str("pattern", "\\W+"), flags(p.str("flags", null)));
                final boolean lower = p.b("lowercase", true);
                final CharArraySet stops = words(p, "stopwords", CharArraySet.EMPTY_SET, false);
                a = new Analyzer() {
                    @Override protected TokenStreamComponents createComponents(String f, Reader r) {
                        Tokenizer tk = new PatternTokenizer(r, pat, -1);
                        TokenStream ts = lower ? new LowerCaseFilter(tk) : tk;
                        return new TokenStreamComponents(tk, new StopFilter(ts, stops));
                    }
                };
                break;
            }
            case "kuromoji": {
                a = new org.apache.lucene.analysis.ja.JapaneseAnalyzer(userDict(p), jaMode(p.str("mode", "search")),
                        words(p, "stopwords", org.apache.lucene.analysis.ja.JapaneseAnalyzer.getDefaultStopSet(), false),
                        org.apache.lucene.analysis.ja.JapaneseAnalyzer.getDefaultStopTags());
                break;
            }
            case "chinese": /* OpenSearch's ChineseAnalyzerProvider, for old indices */
                a = new StandardAnalyzer(StopAnalyzer.ENGLISH_STOP_WORDS_SET);
                break;
            case "smartcn":
                a = new org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer(true);
                break;
            case "fingerprint": throw new NoOracle("fingerprint analyzer (FingerprintFilter is Lucene 5.4+)");
            case "estonian": case "lithuanian": case "bengali":
                throw new NoOracle(t + " analyzer (not in Lucene 4.10)");
            case "custom": {
                Map<String, Object> spec = new HashMap<>();
                spec.put("tokenizer", p.raw("tokenizer"));
                spec.put("filter", p.raw("filter"));
                spec.put("char_filter", p.raw("char_filter"));
                p.raw("position_increment_gap");
                a = composed(spec);
                break;
            }
            default: {
                String cls = LANG_CLASS.get(t);
                if (cls == null) throw new IllegalArgumentException("oracle: unknown analyzer [" + t + "]");
                CharArraySet stops = words(p, "stopwords", defaultStops(t), false);
                Class<?> c = Class.forName(cls);
                boolean hasExcl = true;
                try {
                    c.getConstructor(CharArraySet.class, CharArraySet.class);
                } catch (NoSuchMethodException e) {
                    hasExcl = false; /* cjk, thai, greek, persian: Lucene takes no exclusion set */
                }
                if (!hasExcl) {
                    a = (Analyzer) c.getConstructor(CharArraySet.class).newInstance(stops);
                } else {
                    CharArraySet excl = words(p, "stem_exclusion", CharArraySet.EMPTY_SET, false);
                    a = (Analyzer) c.getConstructor(CharArraySet.class, CharArraySet.class).newInstance(stops, excl);
                }
            }
        }
        p.done();
        a.setVersion(V);
        return a;
    }

    static int flags(String f) {
        if (f == null || f.isEmpty()) return 0;
        int out = 0;
        for (String s : f.split("\\|")) {
            switch (s.trim()) {
                case "CASE_INSENSITIVE": out |= Pattern.CASE_INSENSITIVE; break;
                case "MULTILINE": out |= Pattern.MULTILINE; break;
                case "DOTALL": out |= Pattern.DOTALL; break;
                case "UNICODE_CASE": out |= Pattern.UNICODE_CASE; break;
                case "CANON_EQ": out |= Pattern.CANON_EQ; break;
                case "LITERAL": out |= Pattern.LITERAL; break;
                case "COMMENTS": out |= Pattern.COMMENTS; break;
                case "UNICODE_CHARACTER_CLASS": out |= Pattern.UNICODE_CHARACTER_CLASS; break;
                case "UNIX_LINES": out |= Pattern.UNIX_LINES; break;
                default: throw new IllegalArgumentException("unknown regex flag " + s);
            }
        }
        return out;
    }

    /* --------------------------------------------------------- tokenizers */

    interface TokF { Tokenizer make(Reader r) throws IOException; }
    interface FiltF { TokenStream wrap(TokenStream in) throws IOException; }
    interface CharF { Reader wrap(Reader in); }

    static org.apache.lucene.analysis.ja.JapaneseTokenizer.Mode jaMode(String m) {
        return org.apache.lucene.analysis.ja.JapaneseTokenizer.Mode.valueOf(m.toUpperCase(Locale.ROOT));
    }

    static org.apache.lucene.analysis.ja.dict.UserDictionary userDict(P p) throws IOException {
        List<String> rules = p.list("user_dictionary_rules");
        String path = p.str("user_dictionary", null);
        if (rules == null && path == null) return null;
        String text = rules != null ? String.join("\n", rules)
                : new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8);
        return new org.apache.lucene.analysis.ja.dict.UserDictionary(new StringReader(text));
    }

    /** OpenSearch's token_chars classes (CharMatcher.Basic) over Character.getType. */
    static boolean tokenChar(int c, Set<String> classes, String custom) {
        int t = Character.getType(c);
        for (String k : classes) {
            switch (k) {
                case "letter":
                    if (t == Character.UPPERCASE_LETTER || t == Character.LOWERCASE_LETTER || t == Character.TITLECASE_LETTER
                            || t == Character.MODIFIER_LETTER || t == Character.OTHER_LETTER) return true;
                    break;
                case "digit": if (t == Character.DECIMAL_DIGIT_NUMBER) return true; break;
                case "whitespace": if (Character.isWhitespace(c)) return true; break;
                case "punctuation":
                    if (t == Character.START_PUNCTUATION || t == Character.END_PUNCTUATION || t == Character.OTHER_PUNCTUATION
                            || t == Character.CONNECTOR_PUNCTUATION || t == Character.DASH_PUNCTUATION
                            || t == Character.INITIAL_QUOTE_PUNCTUATION || t == Character.FINAL_QUOTE_PUNCTUATION) return true;
                    break;
                case "symbol":
                    if (t == Character.CURRENCY_SYMBOL || t == Character.MATH_SYMBOL || t == Character.OTHER_SYMBOL
                            || t == Character.MODIFIER_SYMBOL) return true;
                    break;
                case "custom": if (custom != null && custom.indexOf(c) >= 0) return true; break;
                default: throw new IllegalArgumentException("unknown token_chars " + k);
            }
        }
        return false;
    }

    static TokF tokenizer(Object def) throws Exception {
        P p = params(def, "tokenizer");
        TokF f;
        switch (p.kind) {
            case "standard": {
                int max = p.i("max_token_length", 255);
                f = r -> { StandardTokenizer t = new StandardTokenizer(r); t.setMaxTokenLength(max); return t; };
                break;
            }
            case "classic": {
                int max = p.i("max_token_length", 255);
                f = r -> { ClassicTokenizer t = new ClassicTokenizer(r); t.setMaxTokenLength(max); return t; };
                break;
            }
            case "uax_url_email": {
                int max = p.i("max_token_length", 255);
                f = r -> { UAX29URLEmailTokenizer t = new UAX29URLEmailTokenizer(r); t.setMaxTokenLength(max); return t; };
                break;
            }
            case "whitespace":
                if (p.i("max_token_length", 255) != 255) throw new NoOracle("whitespace max_token_length (Lucene 8+)");
                f = WhitespaceTokenizer::new;
                break;
            case "letter": f = LetterTokenizer::new; break;
            case "lowercase": f = LowerCaseTokenizer::new; break;
            case "keyword": {
                int buf = p.i("buffer_size", 256);
                f = r -> new KeywordTokenizer(r, buf);
                break;
            }
            case "ngram": case "nGram": case "edge_ngram": case "edgeNGram": {
                int min = p.i("min_gram", 1), max = p.i("max_gram", 2);
                List<String> tc = p.list("token_chars");
                String custom = p.str("custom_token_chars", null);
                boolean edge = p.kind.startsWith("edge");
                final Set<String> classes = tc == null ? null : new HashSet<>(tc);
                if (classes == null || classes.isEmpty()) {
                    f = r -> edge ? new EdgeNGramTokenizer(V, r, min, max) : new NGramTokenizer(V, r, min, max);
                } else if (edge) {
                    f = r -> new EdgeNGramTokenizer(V, r, min, max) {
                        @Override protected boolean isTokenChar(int c) { return tokenChar(c, classes, custom); }
                    };
                } else {
                    f = r -> new NGramTokenizer(V, r, min, max) {
                        @Override protected boolean isTokenChar(int c) { return tokenChar(c, classes, custom); }
                    };
                }
                break;
            }
            case "pattern": {
                Pattern pat = Pattern.compile(p.str("pattern", "\\W+"), flags(p.str("flags", null)));
                int group = p.i("group", -1);
                f = r -> new PatternTokenizer(r, pat, group);
                break;
            }
            case "path_hierarchy": case "PathHierarchy": {
                String d = p.str("delimiter", "/");
                String rep = p.str("replacement", d);
                int buf = p.i("buffer_size", 1024), skip = p.i("skip", 0);
                boolean rev = p.b("reverse", false);
                f = r -> rev ? new ReversePathHierarchyTokenizer(r, buf, d.charAt(0), rep.charAt(0), skip)
                             : new PathHierarchyTokenizer(r, buf, d.charAt(0), rep.charAt(0), skip);
                break;
            }
            case "thai": f = ThaiTokenizer::new; break;
            case "kuromoji_tokenizer": {
                org.apache.lucene.analysis.ja.dict.UserDictionary ud = userDict(p);
                boolean dp = p.b("discard_punctuation", true);
                org.apache.lucene.analysis.ja.JapaneseTokenizer.Mode mode = jaMode(p.str("mode", "search"));
                if (p.has("nbest_cost") || p.has("nbest_examples")) throw new NoOracle("kuromoji nbest (Lucene 6+)");
                if (p.has("discard_compound_token")) throw new NoOracle("kuromoji discard_compound_token (Lucene 8.9+)");
                f = r -> new org.apache.lucene.analysis.ja.JapaneseTokenizer(r, ud, dp, mode);
                break;
            }
            case "icu_tokenizer": {
                if (p.has("rule_files")) throw new IllegalArgumentException("oracle: icu rule_files unsupported");
                /* Lucene 4.10's ICUTokenizer needs ICU 53: its Default.brk is refused by Debian's ICU4J 72
                   ("Not an ICU data file") and, given ICU 72's own root word rules instead, its
                   BreakIteratorWrapper fails inside ICU (negative arraycopy). */
                throw new NoOracle("icu_tokenizer (Lucene 4.10's ICUTokenizer does not run on Debian's ICU4J 72)");
            }
            case "smartcn_tokenizer": f = org.apache.lucene.analysis.cn.smart.HMMChineseTokenizer::new; break;
            case "char_group": case "simple_pattern": case "simple_pattern_split": case "nori_tokenizer":
                throw new NoOracle(p.kind + " tokenizer (not in Lucene 4.10)");
            default: throw new IllegalArgumentException("oracle: unknown tokenizer [" + p.kind + "]");
        }
        p.done();
        return f;
    }

    /* ------------------------------------------------------------ filters */

    static SnowballFilter snowball(TokenStream in, String lang) { return new SnowballFilter(in, lang); }

    /** OpenSearch's StemmerTokenFilterFactory language table, mapped to Lucene 4.10. */
    static FiltF stemmer(String lang) {
        switch (lang) {
            case "arabic": return org.apache.lucene.analysis.ar.ArabicStemFilter::new;
            case "armenian": return in -> snowball(in, "Armenian");
            case "basque": return in -> snowball(in, "Basque");
            case "brazilian": return org.apache.lucene.analysis.br.BrazilianStemFilter::new;
            case "bulgarian": return org.apache.lucene.analysis.bg.BulgarianStemFilter::new;
            case "catalan": return in -> snowball(in, "Catalan");
            case "czech": return org.apache.lucene.analysis.cz.CzechStemFilter::new;
            case "danish": return in -> snowball(in, "Danish");
            case "dutch": return in -> snowball(in, "Dutch");
            // Lucene 10 removed Kp and Lovins (apache/lucene#13230): OpenSearch 3.x answers
            // these names with no tokens, which 4.10's stemmers cannot stand for
            case "dutch_kp": case "kp": case "lovins":
                throw new NoOracle("stemmer " + lang + " (Lucene 10 removed it: no tokens)");
            case "english": case "porter": return PorterStemFilter::new;
            case "light_english": case "kstem": return KStemFilter::new;
            case "minimal_english": return EnglishMinimalStemFilter::new;
            case "porter2": return in -> snowball(in, "English");
            case "possessive_english": return in -> new EnglishPossessiveFilter(V, in);
            case "finnish": return in -> snowball(in, "Finnish");
            case "light_finish": case "light_finnish": return org.apache.lucene.analysis.fi.FinnishLightStemFilter::new;
            case "french": return in -> snowball(in, "French");
            case "light_french": return org.apache.lucene.analysis.fr.FrenchLightStemFilter::new;
            case "minimal_french": return org.apache.lucene.analysis.fr.FrenchMinimalStemFilter::new;
            case "galician": return org.apache.lucene.analysis.gl.GalicianStemFilter::new;
            case "minimal_galician": return org.apache.lucene.analysis.gl.GalicianMinimalStemFilter::new;
            // Lucene 10's German is Snowball's German2 (apache/lucene#13209)
            case "german": return in -> snowball(in, "German2");
            case "german2": return in -> snowball(in, "German2");
            case "light_german": return org.apache.lucene.analysis.de.GermanLightStemFilter::new;
            case "minimal_german": return org.apache.lucene.analysis.de.GermanMinimalStemFilter::new;
            case "greek": return org.apache.lucene.analysis.el.GreekStemFilter::new;
            case "hindi": return org.apache.lucene.analysis.hi.HindiStemFilter::new;
            case "hungarian": return in -> snowball(in, "Hungarian");
            case "light_hungarian": return org.apache.lucene.analysis.hu.HungarianLightStemFilter::new;
            case "indonesian": return org.apache.lucene.analysis.id.IndonesianStemFilter::new;
            case "irish": return in -> snowball(in, "Irish");
            case "italian": return in -> snowball(in, "Italian");
            case "light_italian": return org.apache.lucene.analysis.it.ItalianLightStemFilter::new;
            case "latvian": return org.apache.lucene.analysis.lv.LatvianStemFilter::new;
            case "norwegian": return in -> snowball(in, "Norwegian");
            case "light_norwegian": return in -> new org.apache.lucene.analysis.no.NorwegianLightStemFilter(in,
                    org.apache.lucene.analysis.no.NorwegianLightStemmer.BOKMAAL);
            case "minimal_norwegian": return in -> new org.apache.lucene.analysis.no.NorwegianMinimalStemFilter(in,
                    org.apache.lucene.analysis.no.NorwegianLightStemmer.BOKMAAL);
            case "light_nynorsk": return in -> new org.apache.lucene.analysis.no.NorwegianLightStemFilter(in,
                    org.apache.lucene.analysis.no.NorwegianLightStemmer.NYNORSK);
            case "minimal_nynorsk": return in -> new org.apache.lucene.analysis.no.NorwegianMinimalStemFilter(in,
                    org.apache.lucene.analysis.no.NorwegianLightStemmer.NYNORSK);
            case "portuguese": return in -> snowball(in, "Portuguese");
            case "light_portuguese": return org.apache.lucene.analysis.pt.PortugueseLightStemFilter::new;
            case "minimal_portuguese": return org.apache.lucene.analysis.pt.PortugueseMinimalStemFilter::new;
            case "portuguese_rslp": return org.apache.lucene.analysis.pt.PortugueseStemFilter::new;
            case "romanian": return in -> snowball(in, "Romanian");
            case "russian": return in -> snowball(in, "Russian");
            case "light_russian": return org.apache.lucene.analysis.ru.RussianLightStemFilter::new;
            case "sorani": return org.apache.lucene.analysis.ckb.SoraniStemFilter::new;
            case "spanish": return in -> snowball(in, "Spanish");
            case "light_spanish": return org.apache.lucene.analysis.es.SpanishLightStemFilter::new;
            case "swedish": return in -> snowball(in, "Swedish");
            case "light_swedish": return org.apache.lucene.analysis.sv.SwedishLightStemFilter::new;
            case "turkish": return in -> snowball(in, "Turkish");
            case "estonian": case "lithuanian": case "bengali": case "serbian":
            case "persian": case "spanish_plural": case "minimal_arabic":
                throw new NoOracle("stemmer " + lang + " (not in Lucene 4.10)");
            default: throw new IllegalArgumentException("oracle: unknown stemmer language [" + lang + "]");
        }
    }

    /** OpenSearch's UniqueTokenFilter (OpenSearch code, not Lucene): drops a term seen before. */
    static final class Unique extends TokenFilter {
        final CharTermAttribute term = addAttribute(CharTermAttribute.class);
        final PositionIncrementAttribute inc = addAttribute(PositionIncrementAttribute.class);
        final CharArraySet seen = new CharArraySet(V, 8, false);
        final boolean samePos;
        Unique(TokenStream in, boolean samePos) { super(in); this.samePos = samePos; }
        @Override public boolean incrementToken() throws IOException {
            while (input.incrementToken()) {
                if (samePos && inc.getPositionIncrement() > 0) seen.clear();
                if (!seen.contains(term.buffer(), 0, term.length())) {
                    seen.add(term.toString());
                    return true;
                }
            }
            return false;
        }
        @Override public void reset() throws IOException { super.reset(); seen.clear(); }
    }

    static FiltF filter(Object def, TokF tok, List<FiltF> before, List<CharF> chars) throws Exception {
        P p = params(def, "filter");
        FiltF f;
        switch (p.kind) {
            case "lowercase": {
                String lang = p.str("language", null);
                if (lang == null) f = in -> new LowerCaseFilter(in);
                else if (lang.equals("greek")) f = org.apache.lucene.analysis.el.GreekLowerCaseFilter::new;
                else if (lang.equals("irish")) f = org.apache.lucene.analysis.ga.IrishLowerCaseFilter::new;
                else if (lang.equals("turkish")) f = org.apache.lucene.analysis.tr.TurkishLowerCaseFilter::new;
                else throw new IllegalArgumentException("unknown lowercase language " + lang);
                break;
            }
            case "uppercase": f = in -> new UpperCaseFilter(in); break;
            case "stop": {
                boolean ic = p.b("ignore_case", false);
                CharArraySet s = words(p, "stopwords", StopAnalyzer.ENGLISH_STOP_WORDS_SET, ic);
                if (!p.b("remove_trailing", true)) throw new NoOracle("stop remove_trailing=false (suggest module)");
                f = in -> new StopFilter(in, s);
                break;
            }
            case "asciifolding": {
                boolean po = p.b("preserve_original", false);
                f = in -> new ASCIIFoldingFilter(in, po);
                break;
            }
            case "trim": f = TrimFilter::new; break;
            case "length": {
                int min = p.i("min", 0), max = p.i("max", Integer.MAX_VALUE);
                f = in -> new LengthFilter(in, min, max);
                break;
            }
            case "porter_stem": f = PorterStemFilter::new; break;
            case "kstem": f = KStemFilter::new; break;
            case "snowball": {
                String lang = p.str("language", "English");
                if (lang.equals("Estonian") || lang.equals("Lithuanian"))
                    throw new NoOracle("snowball " + lang + " (not in Lucene 4.10)");
                // Lucene 10's German is Snowball's German2 (apache/lucene#13209)
                String cls = lang.equals("German") ? "German2" : lang;
                f = in -> snowball(in, cls);
                break;
            }
            case "stemmer": {
                String lang = p.str("language", p.str("name", "english"));
                f = stemmer(lang);
                break;
            }
            case "elision": {
                boolean ic = p.b("articles_case", false);
                CharArraySet arts = words(p, "articles", null, ic);
                if (arts == null) throw new IllegalArgumentException("elision filter requires [articles] or [articles_path] setting");
                f = in -> new ElisionFilter(in, arts);
                break;
            }
            case "cjk_bigram": {
                List<String> ign = p.list("ignored_scripts");
                boolean uni = p.b("output_unigrams", false);
                int flags = CJKBigramFilter.HAN | CJKBigramFilter.HIRAGANA | CJKBigramFilter.KATAKANA | CJKBigramFilter.HANGUL;
                if (ign != null) for (String s : ign) {
                    switch (s) {
                        case "han": flags &= ~CJKBigramFilter.HAN; break;
                        case "hiragana": flags &= ~CJKBigramFilter.HIRAGANA; break;
                        case "katakana": flags &= ~CJKBigramFilter.KATAKANA; break;
                        case "hangul": flags &= ~CJKBigramFilter.HANGUL; break;
                        default: throw new IllegalArgumentException("unknown script " + s);
                    }
                }
                int fl = flags;
                f = in -> new CJKBigramFilter(in, fl, uni);
                break;
            }
            case "cjk_width": f = CJKWidthFilter::new; break;
            case "pattern_replace": {
                Pattern pat = Pattern.compile(p.str("pattern", null), flags(p.str("flags", null)));
                String rep = p.str("replacement", "");
                boolean all = p.b("all", true);
                f = in -> new PatternReplaceFilter(in, pat, rep, all);
                break;
            }
            case "pattern_capture": {
                List<String> pats = p.list("patterns");
                boolean po = p.b("preserve_original", true);
                Pattern[] ps = new Pattern[pats.size()];
                for (int k = 0; k < ps.length; k++) ps[k] = Pattern.compile(pats.get(k));
                f = in -> new PatternCaptureGroupTokenFilter(in, po, ps);
                break;
            }
            case "unique": {
                boolean same = p.b("only_on_same_position", false);
                f = in -> new Unique(in, same);
                break;
            }
            case "remove_duplicates": f = RemoveDuplicatesTokenFilter::new; break;
            case "truncate": {
                int len = p.i("length", 10);
                f = in -> new TruncateTokenFilter(in, len);
                break;
            }
            case "reverse": f = in -> new ReverseStringFilter(V, in); break;
            case "keyword_marker": {
                boolean ic = p.b("ignore_case", false);
                String pat = p.str("keywords_pattern", null);
                if (pat != null) {
                    Pattern ptn = Pattern.compile(pat);
                    f = in -> new PatternKeywordMarkerFilter(in, ptn);
                } else {
                    CharArraySet kw = words(p, "keywords", CharArraySet.EMPTY_SET, ic);
                    f = in -> new SetKeywordMarkerFilter(in, kw);
                }
                break;
            }
            case "stemmer_override": {
                List<String> rules = p.listOrPath("rules");
                StemmerOverrideFilter.Builder b = new StemmerOverrideFilter.Builder(false);
                for (String rule : rules) {
                    String[] sides = rule.split("=>");
                    if (sides.length != 2) throw new IllegalArgumentException("Invalid Keyword override Rule:" + rule);
                    for (String k : sides[0].split(",")) b.add(k.trim(), sides[1].trim());
                }
                StemmerOverrideFilter.StemmerOverrideMap map = b.build();
                f = in -> new StemmerOverrideFilter(in, map);
                break;
            }
            case "hunspell": {
                String loc = p.str("locale", p.str("language", p.str("lang", null)));
                boolean dedup = p.b("dedup", true), longest = p.b("longest_only", false);
                Path dir = Paths.get(System.getenv().getOrDefault("HUNSPELL_DIR", "/usr/share/hunspell"));
                Path aff = dir.resolve(loc + ".aff"), dic = dir.resolve(loc + ".dic");
                org.apache.lucene.analysis.hunspell.Dictionary d;
                try (InputStream a = Files.newInputStream(aff); InputStream dd = Files.newInputStream(dic)) {
                    d = new org.apache.lucene.analysis.hunspell.Dictionary(a, dd);
                }
                f = in -> new org.apache.lucene.analysis.hunspell.HunspellStemFilter(in, d, dedup, longest);
                break;
            }
            case "limit": {
                int n = p.i("max_token_count", 1);
                boolean all = p.b("consume_all_tokens", false);
                f = in -> new LimitTokenCountFilter(in, n, all);
                break;
            }
            case "shingle": {
                int min = p.i("min_shingle_size", 2), max = p.i("max_shingle_size", 2);
                boolean uni = p.b("output_unigrams", true), uniIf = p.b("output_unigrams_if_no_shingles", false);
                String sep = p.str("token_separator", " "), fill = p.str("filler_token", "_");
                f = in -> {
                    ShingleFilter s = new ShingleFilter(in, min, max);
                    s.setOutputUnigrams(uni);
                    s.setOutputUnigramsIfNoShingles(uniIf);
                    s.setTokenSeparator(sep);
                    s.setFillerToken(fill);
                    return s;
                };
                break;
            }
            case "ngram": case "nGram": {
                int min = p.i("min_gram", 1), max = p.i("max_gram", 2);
                if (p.b("preserve_original", false)) throw new NoOracle("ngram preserve_original (Lucene 8+)");
                f = in -> new NGramTokenFilter(V, in, min, max);
                break;
            }
            case "edge_ngram": case "edgeNGram": {
                int min = p.i("min_gram", 1), max = p.i("max_gram", 2);
                if (p.b("preserve_original", false)) throw new NoOracle("edge_ngram preserve_original (Lucene 8+)");
                String side = p.str("side", "front");
                if (side.equals("back")) f = in -> new ReverseStringFilter(V, new EdgeNGramTokenFilter(V,
                        new ReverseStringFilter(V, in), min, max));
                else f = in -> new EdgeNGramTokenFilter(V, in, min, max);
                break;
            }
            case "word_delimiter": {
                int fl = 0;
                if (p.b("generate_word_parts", true)) fl |= WordDelimiterFilter.GENERATE_WORD_PARTS;
                if (p.b("generate_number_parts", true)) fl |= WordDelimiterFilter.GENERATE_NUMBER_PARTS;
                if (p.b("catenate_words", false)) fl |= WordDelimiterFilter.CATENATE_WORDS;
                if (p.b("catenate_numbers", false)) fl |= WordDelimiterFilter.CATENATE_NUMBERS;
                if (p.b("catenate_all", false)) fl |= WordDelimiterFilter.CATENATE_ALL;
                if (p.b("split_on_case_change", true)) fl |= WordDelimiterFilter.SPLIT_ON_CASE_CHANGE;
                if (p.b("preserve_original", false)) fl |= WordDelimiterFilter.PRESERVE_ORIGINAL;
                if (p.b("split_on_numerics", true)) fl |= WordDelimiterFilter.SPLIT_ON_NUMERICS;
                if (p.b("stem_english_possessive", true)) fl |= WordDelimiterFilter.STEM_ENGLISH_POSSESSIVE;
                if (p.has("type_table_path")) throw new IllegalArgumentException("oracle: type_table_path unsupported");
                byte[] table = wdTypes(p.list("type_table"));
                List<String> prot = p.listOrPath("protected_words");
                CharArraySet ps = prot == null ? null : new CharArraySet(V, prot, p.b("protected_words_case", false));
                int flags = fl;
                f = in -> new WordDelimiterFilter(V, in, table, flags, ps);
                break;
            }
            case "synonym": {
                List<String> rules = p.listOrPath("synonyms");
                boolean expand = p.b("expand", true);
                p.b("lenient", false);
                if (!p.str("format", "solr").equals("solr")) throw new IllegalArgumentException("oracle: only solr format");
                /* OpenSearch parses the rules with the chain that precedes the filter */
                final List<FiltF> prev = new ArrayList<>(before);
                Analyzer parseWith = new Analyzer() {
                    @Override protected TokenStreamComponents createComponents(String fn, Reader r) {
                        try {
                            Tokenizer t = tok.make(r);
                            TokenStream ts = t;
                            for (FiltF pf : prev) ts = pf.wrap(ts);
                            return new TokenStreamComponents(t, ts);
                        } catch (IOException e) { throw new UncheckedIOException(e); }
                    }
                };
                SolrSynonymParser sp = new SolrSynonymParser(true, expand, parseWith);
                sp.parse(new StringReader(String.join("\n", rules)));
                SynonymMap map = sp.build();
                f = in -> new SynonymFilter(in, map, false);
                break;
            }
            case "apostrophe": f = org.apache.lucene.analysis.tr.ApostropheFilter::new; break;
            case "classic": f = ClassicFilter::new; break;
            case "german_normalization": f = org.apache.lucene.analysis.de.GermanNormalizationFilter::new; break;
            case "hindi_normalization": f = org.apache.lucene.analysis.hi.HindiNormalizationFilter::new; break;
            case "indic_normalization": f = org.apache.lucene.analysis.in.IndicNormalizationFilter::new; break;
            case "arabic_normalization": f = org.apache.lucene.analysis.ar.ArabicNormalizationFilter::new; break;
            case "persian_normalization": f = org.apache.lucene.analysis.fa.PersianNormalizationFilter::new; break;
            case "sorani_normalization": f = org.apache.lucene.analysis.ckb.SoraniNormalizationFilter::new; break;
            case "scandinavian_normalization": f = ScandinavianNormalizationFilter::new; break;
            case "scandinavian_folding": f = ScandinavianFoldingFilter::new; break;
            case "arabic_stem": f = org.apache.lucene.analysis.ar.ArabicStemFilter::new; break;
            case "brazilian_stem": f = org.apache.lucene.analysis.br.BrazilianStemFilter::new; break;
            case "czech_stem": f = org.apache.lucene.analysis.cz.CzechStemFilter::new; break;
            case "german_stem": f = org.apache.lucene.analysis.de.GermanStemFilter::new; break;
            case "french_stem": f = in -> snowball(in, "French"); break;
            case "russian_stem": f = in -> snowball(in, "Russian"); break;
            case "dutch_stem": f = in -> snowball(in, "Dutch"); break;
            case "kuromoji_baseform": f = org.apache.lucene.analysis.ja.JapaneseBaseFormFilter::new; break;
            case "kuromoji_part_of_speech": {
                List<String> tags = p.list("stoptags");
                Set<String> ts = tags == null ? org.apache.lucene.analysis.ja.JapaneseAnalyzer.getDefaultStopTags() : new HashSet<>(tags);
                f = in -> new org.apache.lucene.analysis.ja.JapanesePartOfSpeechStopFilter(in, ts);
                break;
            }
            case "kuromoji_readingform": {
                boolean rom = p.b("use_romaji", false);
                f = in -> new org.apache.lucene.analysis.ja.JapaneseReadingFormFilter(in, rom);
                break;
            }
            case "kuromoji_stemmer": {
                int min = p.i("minimum_length", 4);
                f = in -> new org.apache.lucene.analysis.ja.JapaneseKatakanaStemFilter(in, min);
                break;
            }
            case "ja_stop": {
                CharArraySet s = words(p, "stopwords", org.apache.lucene.analysis.ja.JapaneseAnalyzer.getDefaultStopSet(), false);
                f = in -> new StopFilter(in, s);
                break;
            }
            case "icu_normalizer": {
                com.ibm.icu.text.Normalizer2 n = icuNormalizer(p, false);
                f = in -> new org.apache.lucene.analysis.icu.ICUNormalizer2Filter(in, n);
                break;
            }
            case "icu_folding":
                /* its utr30.nrm is ICU 53 data, which Debian's ICU4J 72 cannot load */
                throw new NoOracle("icu_folding (Lucene 4.10's utr30.nrm cannot be read by Debian's ICU4J)");
            case "icu_transform": {
                String id = p.str("id", "Null");
                int dir = p.str("dir", "forward").equals("forward") ? com.ibm.icu.text.Transliterator.FORWARD
                        : com.ibm.icu.text.Transliterator.REVERSE;
                com.ibm.icu.text.Transliterator tr = com.ibm.icu.text.Transliterator.getInstance(id, dir);
                f = in -> new org.apache.lucene.analysis.icu.ICUTransformFilter(in, tr);
                break;
            }
            case "icu_collation": {
                /* Lucene 4.10's ICUCollationKeyFilter: the key as IndexableBinaryStringTools chars, as
                   OpenSearch's own copy of the filter writes it */
                String lang = p.str("language", null), country = p.str("country", null);
                com.ibm.icu.util.ULocale loc = lang == null ? com.ibm.icu.util.ULocale.ROOT
                        : country == null ? new com.ibm.icu.util.ULocale(lang) : new com.ibm.icu.util.ULocale(lang, country);
                com.ibm.icu.text.RuleBasedCollator c = (com.ibm.icu.text.RuleBasedCollator) com.ibm.icu.text.Collator.getInstance(loc);
                String strength = p.str("strength", null);
                if (strength != null) c.setStrength(switch (strength) {
                    case "primary" -> com.ibm.icu.text.Collator.PRIMARY;
                    case "secondary" -> com.ibm.icu.text.Collator.SECONDARY;
                    case "quaternary" -> com.ibm.icu.text.Collator.QUATERNARY;
                    case "identical" -> com.ibm.icu.text.Collator.IDENTICAL;
                    default -> com.ibm.icu.text.Collator.TERTIARY; });
                if (p.has("alternate")) c.setAlternateHandlingShifted(p.str("alternate", "").equals("shifted"));
                if (p.has("numeric")) c.setNumericCollation(Boolean.parseBoolean(p.str("numeric", "false")));
                f = in -> new org.apache.lucene.collation.ICUCollationKeyFilter(in, c);
                break;
            }
            case "polish_stem": {
                org.egothor.stemmer.Trie t = org.apache.lucene.analysis.pl.PolishAnalyzer.getDefaultTable();
                f = in -> new org.apache.lucene.analysis.stempel.StempelFilter(in,
                        new org.apache.lucene.analysis.stempel.StempelStemmer(t));
                break;
            }
            case "decimal_digit": case "word_delimiter_graph": case "synonym_graph": case "min_hash":
            case "kuromoji_number": case "fingerprint": case "bengali_normalization": case "serbian_normalization":
            case "persian_stem": case "flatten_graph": case "multiplexer": case "condition": case "predicate_token_filter":
            case "delimited_term_freq": case "keyword_repeat_graph":
                throw new NoOracle(p.kind + " filter (not in Lucene 4.10)");
            case "keyword_repeat": f = KeywordRepeatFilter::new; break;
            default: throw new IllegalArgumentException("oracle: unknown filter [" + p.kind + "]");
        }
        p.done();
        return f;
    }

    /** OpenSearch's word_delimiter type_table ("c => TYPE", c one character or \\uXXXX) over
     *  Character.getType's types, as its parseTypes; null: the default table. */
    static byte[] wdTypes(List<String> rules) {
        if (rules == null) return WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE;
        Map<Character, Byte> m = new TreeMap<>();
        int max = 255;
        for (String r : rules) {
            int i = r.lastIndexOf("=>");
            String l = r.substring(0, i).trim(), t = r.substring(i + 2).trim();
            char c = l.startsWith("\\u") ? (char) Integer.parseInt(l.substring(2), 16) : l.charAt(0);
            byte b = (byte) Arrays.asList("", "LOWER", "UPPER", "ALPHA", "DIGIT", "", "", "ALPHANUM", "SUBWORD_DELIM")
                    .indexOf(t);
            m.put(c, b);
            max = Math.max(max, c);
        }
        byte[] tab = new byte[max + 1];
        for (int i = 0; i <= max; i++) tab[i] = WordDelimiterIterator.getType(i);
        for (Map.Entry<Character, Byte> e : m.entrySet()) tab[e.getKey()] = e.getValue();
        return tab;
    }

    /** OpenSearch's icu_normalizer: only the char filter reads `mode` (the token filter composes). */
    static com.ibm.icu.text.Normalizer2 icuNormalizer(P p, boolean charFilter) {
        String name = p.str("name", "nfkc_cf");
        String mode = charFilter ? p.str("mode", "compose") : "compose";
        if (!charFilter && p.has("mode")) p.str("mode", "compose"); /* read, and ignored */
        if (p.has("unicode_set_filter")) throw new IllegalArgumentException("oracle: unicode_set_filter unsupported");
        return com.ibm.icu.text.Normalizer2.getInstance(null, name,
                mode.equals("compose") ? com.ibm.icu.text.Normalizer2.Mode.COMPOSE : com.ibm.icu.text.Normalizer2.Mode.DECOMPOSE);
    }

    /* -------------------------------------------------------- char filters */

    /** OpenSearch's MappingCharFilterFactory rule syntax: "a => b" with \\ escapes. */
    static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c != '\\' || k + 1 == s.length()) { b.append(c); continue; }
            char e = s.charAt(++k);
            switch (e) {
                case 'n': b.append('\n'); break;
                case 't': b.append('\t'); break;
                case 'r': b.append('\r'); break;
                case 'b': b.append('\b'); break;
                case 'f': b.append('\f'); break;
                case 'u': b.append((char) Integer.parseInt(s.substring(k + 1, k + 5), 16)); k += 4; break;
                default: b.append(e);
            }
        }
        return b.toString();
    }

    static CharF charFilter(Object def) throws Exception {
        P p = params(def, "char_filter");
        CharF f;
        switch (p.kind) {
            case "html_strip": {
                List<String> esc = p.list("escaped_tags");
                Set<String> e = esc == null ? null : new HashSet<>(esc);
                f = r -> new HTMLStripCharFilter(r, e);
                break;
            }
            case "mapping": {
                List<String> rules = p.listOrPath("mappings");
                NormalizeCharMap.Builder b = new NormalizeCharMap.Builder();
                for (String rule : rules) {
                    /* OpenSearch's parseWordList: "#..." is a comment, "# => x" a rule */
                    if (rule.startsWith("#") && !rule.matches("(?s)^\\s*#\\s*=>.*")) continue;
                    int at = rule.indexOf("=>");
                    if (at < 0) throw new IllegalArgumentException("Invalid Mapping Rule : [" + rule + "]");
                    b.add(unescape(rule.substring(0, at).trim()), unescape(rule.substring(at + 2).trim()));
                }
                NormalizeCharMap map = b.build();
                f = r -> new MappingCharFilter(map, r);
                break;
            }
            case "pattern_replace": {
                Pattern pat = Pattern.compile(p.str("pattern", null), flags(p.str("flags", null)));
                String rep = p.str("replacement", "");
                f = r -> new org.apache.lucene.analysis.pattern.PatternReplaceCharFilter(pat, rep, r);
                break;
            }
            case "icu_normalizer": {
                com.ibm.icu.text.Normalizer2 n = icuNormalizer(p, true);
                f = r -> new org.apache.lucene.analysis.icu.ICUNormalizer2CharFilter(r, n);
                break;
            }
            case "kuromoji_iteration_mark": {
                boolean kanji = p.b("normalize_kanji", true), kana = p.b("normalize_kana", true);
                f = r -> new org.apache.lucene.analysis.ja.JapaneseIterationMarkCharFilter(r, kanji, kana);
                break;
            }
            default: throw new IllegalArgumentException("oracle: unknown char_filter [" + p.kind + "]");
        }
        p.done();
        return f;
    }

    @SuppressWarnings("unchecked")
    static List<Object> asList(Object o) {
        if (o == null) return Collections.emptyList();
        if (o instanceof List) return (List<Object>) o;
        return Collections.singletonList(o);
    }

    static Analyzer composed(Map<String, Object> spec) throws Exception {
        Object tdef = spec.get("tokenizer");
        if (tdef == null) throw new IllegalArgumentException("oracle: a spec needs an analyzer or a tokenizer");
        final TokF tok = tokenizer(tdef);
        final List<CharF> chars = new ArrayList<>();
        for (Object c : asList(spec.get("char_filter"))) chars.add(charFilter(c));
        final List<FiltF> filters = new ArrayList<>();
        for (Object fd : asList(spec.get("filter"))) filters.add(filter(fd, tok, filters, chars));
        Analyzer a = new Analyzer() {
            @Override protected TokenStreamComponents createComponents(String fn, Reader r) {
                try {
                    Tokenizer t = tok.make(r);
                    TokenStream ts = t;
                    for (FiltF f : filters) ts = f.wrap(ts);
                    return new TokenStreamComponents(t, ts);
                } catch (IOException e) { throw new UncheckedIOException(e); }
            }
            @Override protected Reader initReader(String fn, Reader r) {
                for (CharF c : chars) r = c.wrap(r);
                return r;
            }
        };
        a.setVersion(V);
        return a;
    }

    @SuppressWarnings("unchecked")
    static Analyzer build(Object specObj) throws Exception {
        Map<String, Object> spec = (Map<String, Object>) specObj;
        if (spec.get("analyzer") != null) return analyzer(spec.get("analyzer"));
        return composed(spec);
    }

    /* ------------------------------------------------------------ running */

    static List<Object> analyze(Analyzer a, String text) throws IOException {
        List<Object> out = new ArrayList<>();
        try (TokenStream ts = a.tokenStream("f", text)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            OffsetAttribute off = ts.addAttribute(OffsetAttribute.class);
            TypeAttribute type = ts.addAttribute(TypeAttribute.class);
            PositionIncrementAttribute inc = ts.addAttribute(PositionIncrementAttribute.class);
            PositionLengthAttribute plen = ts.addAttribute(PositionLengthAttribute.class);
            ts.reset();
            int pos = -1;
            while (ts.incrementToken()) {
                pos += inc.getPositionIncrement();
                Map<String, Object> t = new LinkedHashMap<>();
                t.put("token", term.toString());
                t.put("start_offset", off.startOffset());
                t.put("end_offset", off.endOffset());
                t.put("type", type.type());
                t.put("position", pos);
                if (plen.getPositionLength() > 1) t.put("positionLength", plen.getPositionLength());
                out.add(t);
            }
            ts.end();
        }
        return out;
    }

    static int count(Analyzer a, String text) throws IOException {
        int n = 0;
        try (TokenStream ts = a.tokenStream("f", text)) {
            ts.reset();
            while (ts.incrementToken()) n++;
            ts.end();
        }
        return n;
    }

    static String errorText(Throwable e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        if (args.length >= 1 && args[0].equals("--bench")) {
            bench(in, out, Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                  args.length > 3 && args[3].equals("cpu"));
            return;
        }
        Map<String, Object> cache = new HashMap<>();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            Map<String, Object> res = new LinkedHashMap<>();
            try {
                @SuppressWarnings("unchecked") Map<String, Object> req = (Map<String, Object>) Json.parse(line);
                res.put("id", req.get("id"));
                StringBuilder key = new StringBuilder();
                Json.write(key, req.get("spec"));
                Object a = cache.get(key.toString());
                if (a == null) {
                    try {
                        a = build(req.get("spec"));
                    } catch (NoOracle e) {
                        a = e;
                    } catch (Exception | LinkageError e) {
                        a = new IllegalArgumentException(errorText(e));
                    }
                    cache.put(key.toString(), a);
                }
                if (a instanceof NoOracle) res.put("no_oracle", ((NoOracle) a).getMessage());
                else if (a instanceof Exception) res.put("error", ((Exception) a).getMessage());
                else res.put("tokens", analyze((Analyzer) a, (String) req.get("text")));
            } catch (Exception | LinkageError e) {
                res.put("error", errorText(e));
            }
            StringBuilder b = new StringBuilder();
            Json.write(b, res);
            out.print(b);
            out.print('\n');
            out.flush();
        }
    }

    /** cpu: time passes by this thread's CPU clock (JIT and GC threads not counted) instead of nanoTime. */
    static long clock(boolean cpu) {
        return cpu ? java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime()
                   : System.nanoTime();
    }

    static void bench(BufferedReader in, PrintStream out, int runs, int warm, boolean cpu) throws Exception {
        Map<String, Object> specs = new LinkedHashMap<>();
        Map<String, Integer> repeats = new HashMap<>();
        Map<String, List<String>> texts = new LinkedHashMap<>();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            @SuppressWarnings("unchecked") Map<String, Object> req = (Map<String, Object>) Json.parse(line);
            String id = req.get("id").toString();
            specs.putIfAbsent(id, req.get("spec"));
            if (req.get("repeat") != null) repeats.put(id, ((Number) req.get("repeat")).intValue());
            texts.computeIfAbsent(id, k -> new ArrayList<>()).add((String) req.get("text"));
        }
        for (String id : specs.keySet()) {
            Map<String, Object> res = new LinkedHashMap<>();
            res.put("id", id);
            try {
                Analyzer a = build(specs.get(id));
                int rep = repeats.getOrDefault(id, 1);
                long bytes = 0;
                for (String t : texts.get(id)) bytes += t.getBytes(StandardCharsets.UTF_8).length;
                bytes *= rep;
                long toks = 0;
                for (int w = 0; w < warm; w++)
                    for (int k = 0; k < rep; k++) for (String t : texts.get(id)) toks += count(a, t);
                double[] times = new double[runs];
                for (int r = 0; r < runs; r++) {
                    long t0 = clock(cpu);
                    toks = 0;
                    for (int k = 0; k < rep; k++) for (String t : texts.get(id)) toks += count(a, t);
                    times[r] = (clock(cpu) - t0) / 1e9;
                }
                Arrays.sort(times);
                res.put("bytes", bytes);
                res.put("tokens", toks);
                res.put("median_s", times[runs / 2]);
            } catch (NoOracle e) {
                res.put("no_oracle", e.getMessage());
            } catch (Exception | LinkageError e) {
                res.put("error", errorText(e));
            }
            StringBuilder b = new StringBuilder();
            Json.write(b, res);
            out.print(b);
            out.print('\n');
            out.flush();
        }
    }
}
