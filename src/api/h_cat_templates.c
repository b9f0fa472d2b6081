/*
 * h_cat_templates.c — GET /_cat/templates[/{name}] (RestTemplatesAction).
 *
 * One row per legacy template (name, index_patterns as Java's List
 * toString "[a, b]", order, version, an empty composed_of), then one per
 * composable index template (its priority in the order column, its
 * composed_of list); component templates are not listed. `name` is one
 * simple-match pattern (Regex.simpleMatch, not a comma list), as
 * OpenSearch reads it. Each group comes in name order (OpenSearch's comes
 * in its metadata maps' order, which no client can rely on; `s` sorts).
 * The table engine is h_cat.c's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"
#include "cat_int.h"

static const tv_cat_col template_cols[] = {
    {"name", "n", "template name", false, true},
    {"index_patterns", "t", "template index patterns", false, true},
    {"order", "o,p", "template application order/priority number", false, true},
    {"version", "v", "version", false, true},
    {"composed_of", "c", "component templates comprising index template", false, true},
};

/* Java's List.toString of a JSON string array (or one string). */
static const char *list_text(tv_req *r, const tv_json *p) {
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_putc(&b, '[');
    if (p && p->type == TV_JSON_STRING) tv_buf_puts(&b, p->v.s);
    for (uint32_t i = 0; p && p->type == TV_JSON_ARRAY && i < p->len; i++) {
        const tv_json *e = &p->v.items[i];
        if (i) tv_buf_puts(&b, ", ");
        if (e->type == TV_JSON_STRING) tv_buf_puts(&b, e->v.s);
    }
    tv_buf_putc(&b, ']');
    char *s = b.oom ? NULL : tv_arena_strndup(&r->arena, b.data, b.len);
    tv_buf_fini(&b);
    if (!s) r->oom = true;
    return s;
}

static void num_cell(tv_req *r, tv_cat_table *t, size_t c, const tv_json *v) {
    if (v && v->type == TV_JSON_INT) tv_cat_set_num(r, t, c, v->v.i);
    else if (v && v->raw && tv_json_is_number(v)) tv_cat_set_str(t, c, tv_arena_strndup(&r->arena, v->raw, v->raw_len));
}

void tv_h_cat_templates(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    const char *pat = r->p_name;
    tv_cat_table t = {.cols = template_cols, .ncols = TV_ARRAY_LEN(template_cols)};
    pthread_rwlock_rdlock(&r->node->lock);
    for (int pass = 0; pass < 2 && !r->oom; pass++) {
        bool legacy = pass == 0;
        for (size_t i = 0; i < r->node->st->ntemplates && !r->oom; i++) {
            const tv_template *tp = &r->node->st->templates[i];
            if (tp->component || tp->legacy != legacy) continue;
            if (pat && !tv_simple_match(pat, tp->name, strlen(tp->name))) continue;
            tv_json *j = NULL;
            if (tv_json_parse(&r->arena, tp->body, strlen(tp->body), &j, NULL) != TROVE_OK) {
                r->oom = true;
                break;
            }
            if (!tv_cat_add_row(r, &t)) break;
            tv_cat_set_str(&t, 0, tv_arena_strndup(&r->arena, tp->name, strlen(tp->name)));
            tv_cat_set_str(&t, 1, list_text(r, tv_json_get(j, "index_patterns")));
            num_cell(r, &t, 2, tv_json_get(j, legacy ? "order" : "priority"));
            num_cell(r, &t, 3, tv_json_get(j, "version"));
            tv_cat_set_str(&t, 4, legacy ? "" : list_text(r, tv_json_get(j, "composed_of")));
        }
    }
    pthread_rwlock_unlock(&r->node->lock);
    tv_cat_respond(r, &t);
}
