// bench/fulltext peer for Lucene 4.10 (Debian liblucene4.10-java).
//
//   java -cp ... LucenePeer INDEX_DIR DOCS.ndjson
//
// Builds a one-segment BM25 index of DOCS.ndjson in INDEX_DIR, prints READY<TAB>{json}, then answers
// MODE<TAB>QUERY lines on stdin until EOF (see bench/fulltext/README.md, "The peer protocol").
// stdout carries the protocol only; everything else goes to stderr.

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.util.CharArraySet;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHitCountCollector;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.Constants;
import org.apache.lucene.util.Version;

@SuppressWarnings("deprecation")
public final class LucenePeer {
    private static final Version MATCH = Version.LUCENE_4_10_4;
    private static final String FIELD = "body";

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: LucenePeer INDEX_DIR DOCS.ndjson");
            System.exit(2);
        }
        // Keep the protocol channel to ourselves: anything a library prints goes to stderr.
        final BufferedWriter out = new BufferedWriter(new OutputStreamWriter(
                new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), 1 << 16);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, "UTF-8"));

        // Run on a thread with a large stack: automaton construction for wildcards/regexps and
        // the query parser recurse. The peer stays single-threaded (main only waits).
        final int[] rc = {0};
        Thread worker = new Thread(null, () -> {
            try {
                rc[0] = run(args[0], args[1], out);
            } catch (Throwable t) {
                t.printStackTrace(System.err);
                rc[0] = 1;
            }
        }, "lucene-peer", 256L << 20);
        worker.start();
        worker.join();
        System.exit(rc[0]);
    }

    private static int run(String indexDir, String docsPath, BufferedWriter out) throws Exception {
        BooleanQuery.setMaxClauseCount(Integer.MAX_VALUE);
        Analyzer analyzer = new StandardAnalyzer(MATCH, CharArraySet.EMPTY_SET);
        BM25Similarity similarity = new BM25Similarity(1.2f, 0.75f);
        File dirFile = new File(indexDir);
        if (!dirFile.isDirectory() && !dirFile.mkdirs()) {
            System.err.println("lucene-peer: cannot create " + indexDir);
            return 1;
        }

        long t0 = System.nanoTime();
        // MMapDirectory explicitly: FSDirectory.open() only picks it when unmapping is supported,
        // which Lucene 4.10 cannot do on Java 9+, and would fall back to NIOFSDirectory.
        Directory dir = new MMapDirectory(dirFile);
        IndexWriterConfig iwc = new IndexWriterConfig(MATCH, analyzer);
        iwc.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
        iwc.setSimilarity(similarity);
        iwc.setRAMBufferSizeMB(256.0);
        IndexWriter writer = new IndexWriter(dir, iwc);

        Document doc = new Document();
        Field idField = new StringField("id", "", Field.Store.YES);
        Field bodyField = new TextField(FIELD, "", Field.Store.NO);
        doc.add(idField);
        doc.add(bodyField);
        NdjsonDoc parsed = new NdjsonDoc();
        long lineNo = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                new FileInputStream(docsPath), StandardCharsets.UTF_8), 1 << 20)) {
            String line;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.trim().isEmpty()) continue;
                try {
                    parsed.parse(line);
                } catch (IllegalArgumentException e) {
                    System.err.println("lucene-peer: " + docsPath + ":" + lineNo + ": " + e.getMessage());
                    writer.rollback();
                    return 1;
                }
                idField.setStringValue(parsed.id == null ? "" : parsed.id);
                bodyField.setStringValue(parsed.body == null ? "" : parsed.body);
                writer.addDocument(doc);
            }
        }
        long t1 = System.nanoTime();
        writer.forceMerge(1);
        long t2 = System.nanoTime();
        writer.commit();
        writer.close();
        long t3 = System.nanoTime();
        DirectoryReader reader = DirectoryReader.open(dir);
        IndexSearcher searcher = new IndexSearcher(reader);
        searcher.setSimilarity(similarity);
        long t4 = System.nanoTime();
        double indexSeconds = (t4 - t0) / 1e9;
        System.err.printf(Locale.ROOT, "lucene-peer: %d docs: add %.3fs, forceMerge %.3fs, commit+close %.3fs,"
                + " open %.3fs%n", reader.numDocs(), (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9,
                (t4 - t3) / 1e9);

        long indexBytes = 0;
        File[] files = dirFile.listFiles();
        if (files != null)
            for (File f : files)
                if (f.isFile()) indexBytes += f.length();

        out.write(String.format(Locale.ROOT,
                "READY\t{\"engine\":\"lucene\",\"version\":\"%s\",\"docs\":%d,\"segments\":%d,"
                + "\"index_seconds\":%.3f,\"index_bytes\":%d}\n",
                Constants.LUCENE_MAIN_VERSION, reader.numDocs(), reader.leaves().size(),
                indexSeconds, indexBytes));
        out.flush();

        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        boolean cpuOk = mx.isCurrentThreadCpuTimeSupported();
        if (cpuOk) {
            if (!mx.isThreadCpuTimeEnabled()) mx.setThreadCpuTimeEnabled(true);
        } else {
            System.err.println("lucene-peer: thread CPU time not supported; CPU_NS will be -1");
        }

        QueryParser parser = new QueryParser(MATCH, FIELD, analyzer);
        parser.setDefaultOperator(QueryParser.Operator.OR);
        parser.setAllowLeadingWildcard(true);

        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = stdin.readLine()) != null) {
            if (line.isEmpty()) continue;
            out.write(answer(line, parser, searcher, mx, cpuOk));
            out.write('\n');
            out.flush();
        }
        reader.close();
        dir.close();
        return 0;
    }

    private static String answer(String line, QueryParser parser, IndexSearcher searcher,
                                 ThreadMXBean mx, boolean cpuOk) {
        int tab = line.indexOf('\t');
        if (tab < 0) return "ERROR\tmissing TAB between MODE and QUERY";
        String mode = line.substring(0, tab);
        String text = line.substring(tab + 1);
        int topN;
        switch (mode) {
            case "COUNT": topN = 0; break;
            case "TOP_10": topN = 10; break;
            case "TOP_100": topN = 100; break;
            default: return "ERROR\tunknown mode " + oneLine(mode);
        }
        long cpu0 = cpuOk ? mx.getCurrentThreadCpuTime() : 0;
        long wall0 = System.nanoTime();
        long hits;
        try {
            Query q = parser.parse(text);
            if (topN == 0) {
                TotalHitCountCollector c = new TotalHitCountCollector();
                searcher.search(q, c);
                hits = c.getTotalHits();
            } else {
                TopDocs td = searcher.search(q, topN);
                hits = td.scoreDocs.length;
            }
        } catch (ParseException e) {
            return "ERROR\tparse: " + oneLine(e.getMessage());
        } catch (Exception | StackOverflowError e) {
            return "ERROR\t" + e.getClass().getSimpleName() + ": " + oneLine(e.getMessage());
        }
        long wall = System.nanoTime() - wall0;
        long cpu = cpuOk ? mx.getCurrentThreadCpuTime() - cpu0 : -1;
        return "OK\t" + hits + "\t" + cpu + "\t" + wall;
    }

    private static String oneLine(String s) {
        if (s == null) return "";
        return s.replace('\t', ' ').replace('\r', ' ').replace('\n', ' ');
    }

    /** Minimal JSON reader for one NDJSON line: the string members "id" and "body" of an object;
     *  other members are skipped, whatever their type. */
    static final class NdjsonDoc {
        String id, body;
        private String s;
        private int p;
        private final StringBuilder sb = new StringBuilder(4096);

        void parse(String line) {
            s = line;
            p = 0;
            id = null;
            body = null;
            ws();
            expect('{');
            ws();
            if (peek() == '}') { p++; end(); return; }
            for (;;) {
                ws();
                String key = string();
                ws();
                expect(':');
                ws();
                if ((key.equals("id") || key.equals("body")) && peek() == '"') {
                    String v = string();
                    if (key.equals("id")) id = v; else body = v;
                } else if (key.equals("id") && (peek() == '-' || (peek() >= '0' && peek() <= '9'))) {
                    int a = p;
                    skipValue();
                    id = s.substring(a, p);
                } else {
                    skipValue();
                }
                ws();
                char c = next();
                if (c == '}') break;
                if (c != ',') throw bad("expected ',' or '}'");
            }
            end();
        }

        private void end() {
            ws();
            if (p != s.length()) throw bad("trailing characters");
        }

        private IllegalArgumentException bad(String why) {
            return new IllegalArgumentException("bad JSON at column " + (p + 1) + ": " + why);
        }

        private char peek() {
            if (p >= s.length()) throw bad("unexpected end of line");
            return s.charAt(p);
        }

        private char next() {
            char c = peek();
            p++;
            return c;
        }

        private void expect(char c) {
            if (next() != c) { p--; throw bad("expected '" + c + "'"); }
        }

        private void ws() {
            while (p < s.length()) {
                char c = s.charAt(p);
                if (c == ' ' || c == '\t' || c == '\r' || c == '\n') p++; else break;
            }
        }

        private int hex4() {
            if (p + 4 > s.length()) throw bad("short \\u escape");
            int v = 0;
            for (int i = 0; i < 4; i++) {
                int d = Character.digit(s.charAt(p++), 16);
                if (d < 0) throw bad("bad hex digit in \\u escape");
                v = (v << 4) | d;
            }
            return v;
        }

        private String string() {
            expect('"');
            // Fast path: no escapes.
            int start = p;
            while (p < s.length()) {
                char c = s.charAt(p);
                if (c == '"') { p++; return s.substring(start, p - 1); }
                if (c == '\\') break;
                p++;
            }
            sb.setLength(0);
            sb.append(s, start, p);
            for (;;) {
                char c = next();
                if (c == '"') return sb.toString();
                if (c != '\\') { sb.append(c); continue; }
                char e = next();
                switch (e) {
                    case '"': sb.append('"'); break;
                    case '\\': sb.append('\\'); break;
                    case '/': sb.append('/'); break;
                    case 'b': sb.append('\b'); break;
                    case 'f': sb.append('\f'); break;
                    case 'n': sb.append('\n'); break;
                    case 'r': sb.append('\r'); break;
                    case 't': sb.append('\t'); break;
                    case 'u': {
                        int u = hex4();
                        if (Character.isHighSurrogate((char) u) && p + 6 <= s.length()
                                && s.charAt(p) == '\\' && s.charAt(p + 1) == 'u') {
                            int save = p;
                            p += 2;
                            int lo = hex4();
                            if (Character.isLowSurrogate((char) lo)) {
                                sb.appendCodePoint(Character.toCodePoint((char) u, (char) lo));
                            } else {
                                sb.append((char) u);   // lone high surrogate; re-read the next escape
                                p = save;
                            }
                        } else {
                            sb.append((char) u);      // BMP char (or lone surrogate, kept as is)
                        }
                        break;
                    }
                    default:
                        p--;
                        throw bad("bad escape \\" + e);
                }
            }
        }

        private void skipValue() {
            char c = peek();
            if (c == '"') { string(); return; }
            if (c == '{' || c == '[') {
                char close = c == '{' ? '}' : ']';
                p++;
                ws();
                if (peek() == close) { p++; return; }
                for (;;) {
                    ws();
                    if (close == '}') { string(); ws(); expect(':'); ws(); }
                    skipValue();
                    ws();
                    char d = next();
                    if (d == close) return;
                    if (d != ',') { p--; throw bad("expected ',' or '" + close + "'"); }
                }
            }
            int a = p;
            while (p < s.length()) {
                char d = s.charAt(p);
                if (d == ',' || d == '}' || d == ']' || d == ' ' || d == '\t' || d == '\r' || d == '\n') break;
                p++;
            }
            if (p == a) throw bad("expected a value");
            String lit = s.substring(a, p);
            if (!lit.equals("true") && !lit.equals("false") && !lit.equals("null")
                    && !lit.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"))
                throw bad("bad literal " + lit);
        }
    }
}
