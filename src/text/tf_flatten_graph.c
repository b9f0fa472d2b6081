/*
 * tf_flatten_graph.c — the `flatten_graph` token filter (Lucene 10's
 * FlattenGraphFilter, no settings): turns a token graph (synonym_graph,
 * word_delimiter_graph) into a linear chain for indexing, merging the
 * positions of side paths so every path touches every node.
 *
 * Algorithm: FlattenGraphFilter's bookkeeping, step for step. Input nodes
 * are the graph's positions (a token leaves node `from` = the running sum
 * of increments and arrives at from + positionLength); output nodes are
 * numbered sequentially: a token's destination maps to one past its
 * source's output node, pushed later when a longer path arrives there. A
 * token whose source no token reached (a hole) is placed one past the
 * nearest reachable node, or at the end. Tokens are released, in input
 * order per node, once no pending token can still move their output node
 * (every token leaving the node's inputs has been read, or the input
 * ended); a released token's increment and length are recomputed over the
 * output nodes, and its offsets "shrink-wrapped" to the most restrictive
 * start of its source and end of its destination, never going backwards.
 *
 * Here the whole token array is at hand, so the nodes are plain arrays
 * indexed by position (Lucene's rolling buffers only bound memory).
 * Rejected: recomputing the flattening from the graph's topology directly
 * (simpler, but Lucene's greedy, order-dependent numbering is what must be
 * matched, holes included).
 */
#include "text/text_int.h"

typedef struct foff {
    int64_t u; /* UTF-16 offset; -1: unset */
    uint32_t b; /* the same place in bytes */
} foff;

typedef struct fin {
    int64_t node, max_to, min_to, out;
    size_t first, ntok, next_out; /* tokens leaving here: items[first .. first+ntok) */
} fin;

typedef struct fout {
    int64_t node;
    int64_t *inputs;
    size_t ninputs, cap, next_out;
    foff start, end;
} fout;

typedef struct flat {
    tv_arena *a;
    const tv_tokvec *v;
    fin *in;
    size_t nin;
    fout *out;
    size_t nout;
    int64_t out_max; /* the highest output node looked up (RollingBuffer.getMaxPos) */
    int64_t input_from, output_from, last_output_from;
    foff last_start;
    bool done, oom;
} flat;

static fin *IN(flat *f, int64_t i) {
    if (i < 0) i = 0;
    if ((size_t)i >= f->nin) {
        size_t n = (size_t)i * 2 + 16;
        fin *p = tv_arena_alloc(f->a, n * sizeof *p);
        if (!p) {
            f->oom = true;
            static fin dummy;
            return &dummy;
        }
        if (f->nin) memcpy(p, f->in, f->nin * sizeof *p);
        for (size_t k = f->nin; k < n; k++)
            p[k] = (fin){.node = -1, .max_to = -1, .min_to = INT64_MAX, .out = -1};
        f->in = p;
        f->nin = n;
    }
    return &f->in[i];
}

static fout *OUT(flat *f, int64_t i) {
    if (i < 0) i = 0;
    if ((size_t)i >= f->nout) {
        size_t n = (size_t)i * 2 + 16;
        fout *p = tv_arena_alloc(f->a, n * sizeof *p);
        if (!p) {
            f->oom = true;
            static fout dummy;
            return &dummy;
        }
        if (f->nout) memcpy(p, f->out, f->nout * sizeof *p);
        for (size_t k = f->nout; k < n; k++)
            p[k] = (fout){.node = -1, .start = {-1, 0}, .end = {-1, 0}};
        f->out = p;
        f->nout = n;
    }
    if (i > f->out_max) f->out_max = i;
    return &f->out[i];
}

static void add_input(flat *f, fout *o, int64_t id) {
    if (o->ninputs == o->cap) {
        size_t n = o->cap ? o->cap * 2 : 4;
        int64_t *p = tv_arena_alloc(f->a, n * sizeof *p);
        if (!p) {
            f->oom = true;
            return;
        }
        if (o->ninputs) memcpy(p, o->inputs, o->ninputs * sizeof *p);
        o->inputs = p;
        o->cap = n;
    }
    o->inputs[o->ninputs++] = id;
}

static void remove_input(fout *o, int64_t id) {
    for (size_t k = 0; k < o->ninputs; k++)
        if (o->inputs[k] == id) {
            memmove(o->inputs + k, o->inputs + k + 1, (o->ninputs - k - 1) * sizeof *o->inputs);
            o->ninputs--;
            return;
        }
}

static uint32_t plen(const tv_token *t) { return t->pos_len > 1 ? t->pos_len : 1; }

static fout *recover_from_hole(flat *f, int64_t src_id, foff start, int64_t posinc) {
    fin *src = IN(f, src_id);
    src->node = f->input_from;
    int64_t idx, prev = f->input_from - posinc;
    if (prev >= 0) {
        fin *o = IN(f, prev);
        if (o->min_to < f->input_from) idx = IN(f, o->min_to)->out + 1;
        else idx = f->out_max;
    } else {
        idx = f->out_max + 1;
    }
    fout *os = OUT(f, idx);
    src = IN(f, src_id);
    src->out = idx;
    if (os->node == -1) {
        os->node = idx;
        os->start = start;
    } else if (start.u > os->start.u) {
        os->start = start;
    }
    add_input(f, os, f->input_from);
    return os;
}

/* releaseBufferedToken: true with *o filled when a token is released. */
static bool release(flat *f, tv_token *o) {
    while (f->output_from < f->out_max) {
        fout *out = OUT(f, f->output_from);
        if (!out->ninputs) {
            f->output_from++;
            continue;
        }
        int64_t max_to = -1;
        for (size_t k = 0; k < out->ninputs; k++) {
            int64_t m = IN(f, out->inputs[k])->max_to;
            if (m > max_to) max_to = m;
        }
        if (!(max_to <= f->input_from || f->done)) return false;
        fin *in = IN(f, out->inputs[out->next_out]);
        if (in->ntok == 0) {
            if (out->ninputs > 1) {
                out->next_out++;
                if (out->next_out < out->ninputs) continue;
            }
            f->output_from++; /* freeBefore */
            continue;
        }
        const tv_token *t = &f->v->items[in->first + in->next_out];
        *o = *t;
        o->position = (uint32_t)(f->output_from - f->last_output_from);
        fin *to = IN(f, in->node + plen(t));
        int64_t to_out = to->out;
        o->pos_len = (uint16_t)(to_out - f->output_from);
        f->last_output_from = f->output_from;
        in = IN(f, out->inputs[out->next_out]);
        in->next_out++;
        fout *end_node = OUT(f, to_out);
        out = OUT(f, f->output_from);
        foff s = out->start.u > f->last_start.u ? out->start : f->last_start;
        foff e = end_node->end.u > s.u ? end_node->end : s;
        o->start16 = (uint32_t)s.u;
        o->start = s.b;
        o->end16 = (uint32_t)e.u;
        o->end = e.b;
        f->last_start = s;
        if (in->next_out == in->ntok) {
            out->next_out++;
            if (out->next_out == out->ninputs) f->output_from++; /* freeBefore */
        }
        return true;
    }
    return false;
}

static void take(flat *f, size_t idx) {
    const tv_token *t = &f->v->items[idx];
    int64_t posinc = t->position;
    f->input_from += posinc;
    if (f->input_from < 0) f->input_from = 0;
    foff start = {t->start16, t->start}, end = {t->end16, t->end};
    int64_t input_to = f->input_from + plen(t);
    fin *src = IN(f, f->input_from);
    if (src->node == -1) {
        recover_from_hole(f, f->input_from, start, posinc);
    } else {
        fout *os = OUT(f, src->out);
        int64_t prev = f->input_from - posinc;
        if (posinc > 1 && prev >= 0 && src->out - IN(f, prev)->out <= 1 &&
            IN(f, prev)->min_to != f->input_from) {
            remove_input(os, f->input_from);
            IN(f, f->input_from)->out = -1;
            foff prev_end = os->end;
            os = recover_from_hole(f, f->input_from, start, posinc);
            os->end = prev_end;
        }
        if (os->start.u == -1 || start.u > os->start.u) os->start = start.u > os->start.u ? start : os->start;
    }
    src = IN(f, f->input_from);
    if (src->ntok == 0) src->first = idx;
    src->ntok++;
    if (input_to > src->max_to) src->max_to = input_to;
    if (input_to < src->min_to) src->min_to = input_to;
    int64_t src_out = src->out;
    fin *dest = IN(f, input_to);
    if (dest->node == -1) dest->node = input_to;
    int64_t out_end = src_out + 1;
    if (out_end > dest->out) {
        if (dest->out != -1) remove_input(OUT(f, dest->out), input_to);
        add_input(f, OUT(f, out_end), input_to);
        IN(f, input_to)->out = out_end;
    }
    fout *od = OUT(f, IN(f, input_to)->out);
    if (od->end.u == -1 || end.u < od->end.u) od->end = end;
}

static tv_status flatten_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    flat f = {.a = a, .v = v, .input_from = -1, .last_output_from = -1, .last_start = {0, 0}};
    fin *i0 = IN(&f, 0);
    i0->node = 0;
    i0->out = 0;
    fout *o0 = OUT(&f, 0);
    o0->node = 0;
    add_input(&f, o0, 0);
    o0->start = (foff){0, 0};
    tv_tokvec out = {0};
    size_t next = 0;
    for (;;) {
        tv_token o;
        if (release(&f, &o)) {
            if (f.oom || tv_tokvec_push(a, &out, &o)) return TROVE_ENOMEM;
            continue;
        }
        if (f.done) break;
        if (next < v->len) take(&f, next++);
        else f.done = true;
        if (f.oom) return TROVE_ENOMEM;
    }
    if (f.oom) return TROVE_ENOMEM;
    out.trailing = v->trailing;
    *v = out;
    return TROVE_OK;
}

const tv_filter_type tv_tf_flatten_graph = {"flatten_graph", NULL, flatten_apply};
