/* The C API's aggregate queries from C (compiled as C99): rowjit_query and rowjit_query_state,
 * and top-k selections (rowjit_top_k, rowjit_top_k_state), answers written by hand from the query rules (docs/semantics.md, "Aggregate queries"), their
 * error paths, and that every ArrowArray and ArrowSchema handed over or received is released
 * exactly once (counted here; ASan and LeakSanitizer watch the rest in the sanitizer build).
 * Exit status 0 when every check holds. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi/rowjit.h"

static int failures = 0;
static int checks = 0;
#define CHECK(cond)                                                                \
  do {                                                                             \
    ++checks;                                                                      \
    if (!(cond)) {                                                                 \
      ++failures;                                                                  \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
    }                                                                              \
  } while (0)

/* --- Arrow structs built by hand, as a C host would, with counted releases ------------------- */

static int array_releases = 0, schema_releases = 0, arrays_made = 0, schemas_made = 0;

typedef struct {
  const void* buffers[2];
  void* values;
  void* validity;
  struct ArrowArray** children;
} array_data;

static void release_array(struct ArrowArray* a) {
  array_data* d = (array_data*)a->private_data;
  for (int64_t i = 0; i < a->n_children; ++i) {
    if (a->children[i]->release != NULL) a->children[i]->release(a->children[i]);
    free(a->children[i]);
  }
  free(d->values);
  free(d->validity);
  free(d->children);
  free(d);
  a->release = NULL;
  ++array_releases;
}

static void release_schema(struct ArrowSchema* s) {
  for (int64_t i = 0; i < s->n_children; ++i) {
    if (s->children[i]->release != NULL) s->children[i]->release(s->children[i]);
    free(s->children[i]);
  }
  free(s->children);
  s->release = NULL;
  ++schema_releases;
}

/* A column of n `width`-byte values; valid[i] == 0 makes row i null (valid NULL: no nulls). */
static struct ArrowArray* column(const void* values, int width, const uint8_t* valid, int64_t n) {
  struct ArrowArray* a = (struct ArrowArray*)calloc(1, sizeof(struct ArrowArray));
  array_data* d = (array_data*)calloc(1, sizeof(array_data));
  d->values = malloc((size_t)(n * width) + 8);
  if (n > 0) memcpy(d->values, values, (size_t)(n * width));
  if (valid != NULL) {
    d->validity = calloc((size_t)n / 8 + 1, 1);
    for (int64_t i = 0; i < n; ++i) {
      if (valid[i]) ((uint8_t*)d->validity)[i / 8] |= (uint8_t)(1u << (i % 8));
      else ++a->null_count;
    }
  }
  d->buffers[0] = d->validity;
  d->buffers[1] = d->values;
  a->length = n;
  a->n_buffers = 2;
  a->buffers = d->buffers;
  a->release = release_array;
  a->private_data = d;
  ++arrays_made;
  return a;
}

/* A field (`name` a static string: the release frees only what it allocated). */
static struct ArrowSchema* field(const char* format, const char* name, int nullable) {
  struct ArrowSchema* s = (struct ArrowSchema*)calloc(1, sizeof(struct ArrowSchema));
  s->format = format;
  s->name = name;
  s->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  s->release = release_schema;
  ++schemas_made;
  return s;
}

/* A struct batch of three columns (moved into it) and its schema. */
static void make_batch(struct ArrowArray* cols[3], struct ArrowSchema* fields[3], int64_t length,
                       struct ArrowArray* out, struct ArrowSchema* out_schema) {
  array_data* d = (array_data*)calloc(1, sizeof(array_data));
  d->children = (struct ArrowArray**)calloc(3, sizeof(struct ArrowArray*));
  struct ArrowSchema** sc = (struct ArrowSchema**)calloc(3, sizeof(struct ArrowSchema*));
  for (int i = 0; i < 3; ++i) {
    d->children[i] = cols[i];
    sc[i] = fields[i];
  }
  memset(out, 0, sizeof(*out));
  out->length = length;
  out->n_buffers = 1;
  out->n_children = 3;
  out->buffers = d->buffers;
  out->children = d->children;
  out->release = release_array;
  out->private_data = d;
  memset(out_schema, 0, sizeof(*out_schema));
  out_schema->format = "+s";
  out_schema->name = "";
  out_schema->n_children = 3;
  out_schema->children = sc;
  out_schema->release = release_schema;
  ++arrays_made;
  ++schemas_made;
}

/* Rows of g:i32?, x:i32?, y:i64 (the query's schema); INT32_MIN in g or x writes a null. The
 * names and the key's format may be changed to make batches that do not fit. */
#define NUL INT32_MIN
static void gxy(const int32_t* g, const int32_t* x, const int64_t* y, int64_t n, const char* g_name,
                const char* g_format, struct ArrowArray* out, struct ArrowSchema* out_schema) {
  uint8_t gv[16], xv[16];
  int64_t g64[16];
  for (int64_t i = 0; i < n; ++i) {
    gv[i] = g[i] != NUL;
    xv[i] = x[i] != NUL;
    g64[i] = g[i];
  }
  const int wide = strcmp(g_format, "l") == 0;
  struct ArrowArray* cols[3] = {wide ? column(g64, 8, gv, n) : column(g, 4, gv, n), column(x, 4, xv, n),
                                column(y, 8, NULL, n)};
  struct ArrowSchema* fields[3] = {field(g_format, g_name, 1), field("i", "x", 1), field("l", "y", 0)};
  make_batch(cols, fields, n, out, out_schema);
}

static rowjit_batch* import_gxy(const int32_t* g, const int32_t* x, const int64_t* y, int64_t n) {
  struct ArrowArray a;
  struct ArrowSchema s;
  gxy(g, x, y, n, "g", "i", &a, &s);
  rowjit_batch* batch = NULL;
  rowjit_error err;
  CHECK(rowjit_batch_import(&a, &s, &batch, &err) == ROWJIT_OK && batch != NULL);
  return batch;
}

/* Batch A:   g     x     y        Batch B:   g     x     y
 *            1     5    10                   2     3     2
 *            2     7    -3                   3     4     5
 *            1  null     4                   1    10    20
 *         null     2     6                null  null     1
 *            2   200     8
 *            1     1    -1                                   */
static const int32_t kGA[] = {1, 2, 1, NUL, 2, 1}, kXA[] = {5, 7, NUL, 2, 200, 1};
static const int64_t kYA[] = {10, -3, 4, 6, 8, -1};
static const int32_t kGB[] = {2, 3, 1, NUL}, kXB[] = {3, 4, 10, NUL};
static const int64_t kYB[] = {2, 5, 20, 1};

static const char* const kQuery = "sum(x), avg(y), count(*) filter (where y > 0) group by g where y < 9";

/* --- reading a result ------------------------------------------------------------------------ */

static int valid_at(const struct ArrowArray* a, int64_t i) {
  const uint8_t* bits = (const uint8_t*)a->buffers[0];
  return bits == NULL || ((bits[(a->offset + i) / 8] >> ((a->offset + i) % 8)) & 1);
}
static int32_t i32_at(const struct ArrowArray* a, int64_t i) { return ((const int32_t*)a->buffers[1])[a->offset + i]; }
static int64_t i64_at(const struct ArrowArray* a, int64_t i) { return ((const int64_t*)a->buffers[1])[a->offset + i]; }
static double f64_at(const struct ArrowArray* a, int64_t i) { return ((const double*)a->buffers[1])[a->offset + i]; }

/* One expected row of kQuery's answer: the key (NUL: null), sum(x) (NUL: null), avg(y), the count. */
typedef struct {
  int32_t g;
  int64_t sum;
  double avg;
  int64_t count;
} group_row;

/* Whether `out` is kQuery's answer with exactly these rows, in order. */
static int is_answer(const struct ArrowArray* out, const struct ArrowSchema* s, const group_row* rows, int64_t n) {
  if (out->n_children != 4 || s->n_children != 4 || out->length != n || strcmp(s->format, "+s") != 0) return 0;
  const struct ArrowArray *g = out->children[0], *sum = out->children[1], *avg = out->children[2], *cnt = out->children[3];
  if (strcmp(s->children[0]->format, "i") || strcmp(s->children[1]->format, "l") || strcmp(s->children[2]->format, "g") ||
      strcmp(s->children[3]->format, "l")) {
    return 0;
  }
  for (int64_t r = 0; r < n; ++r) {
    if (rows[r].g == NUL ? valid_at(g, r) : !valid_at(g, r) || i32_at(g, r) != rows[r].g) return 0;
    if (rows[r].sum == NUL ? valid_at(sum, r) : !valid_at(sum, r) || i64_at(sum, r) != rows[r].sum) return 0;
    if (!valid_at(avg, r) || f64_at(avg, r) != rows[r].avg) return 0;
    if (!valid_at(cnt, r) || i64_at(cnt, r) != rows[r].count) return 0;
  }
  return 1;
}

static void release_both(struct ArrowArray* out, struct ArrowSchema* s) {
  out->release(out);
  s->release(s);
}

/* --- the tests ------------------------------------------------------------------------------- */

static rowjit_engine* new_engine(void) {
  rowjit_engine_options o;
  rowjit_engine_options_init(&o);
  o.synchronous = 1;
  rowjit_engine* e = NULL;
  CHECK(rowjit_engine_create(&o, &e, NULL) == ROWJIT_OK && e != NULL);
  return e;
}

static void test_parse_and_columns(rowjit_engine* e, const struct ArrowSchema* schema) {
  rowjit_query* q = NULL;
  rowjit_error err;
  CHECK(rowjit_query_parse(e, kQuery, schema, &q, &err) == ROWJIT_OK && q != NULL && err.code == ROWJIT_OK);
  CHECK(rowjit_query_columns(q) == 4 && rowjit_query_keys(q) == 1);
  /* Keys by their column's name, aggregates by their text as written, FILTER included. */
  CHECK(strcmp(rowjit_query_column_name(q, 0), "g") == 0);
  CHECK(strcmp(rowjit_query_column_name(q, 1), "sum(x)") == 0);
  CHECK(strcmp(rowjit_query_column_name(q, 2), "avg(y)") == 0);
  CHECK(strcmp(rowjit_query_column_name(q, 3), "count(*) filter (where y > 0)") == 0);
  /* g:i32, an i32 sum is i64, avg f64, a count i64. */
  CHECK(strcmp(rowjit_query_column_format(q, 0), "i") == 0 && strcmp(rowjit_query_column_format(q, 1), "l") == 0 &&
        strcmp(rowjit_query_column_format(q, 2), "g") == 0 && strcmp(rowjit_query_column_format(q, 3), "l") == 0);
  CHECK(rowjit_query_column_name(q, 4) == NULL && rowjit_query_column_format(q, 4) == NULL);
  CHECK(strlen(rowjit_query_text(q)) > 0);
  rowjit_query_free(q);
  /* A single plain aggregate is a query too (one column, no key). */
  CHECK(rowjit_query_parse(e, "max(y)", schema, &q, &err) == ROWJIT_OK && rowjit_query_columns(q) == 1 &&
        rowjit_query_keys(q) == 0);
  rowjit_query_free(q);
  /* NULL handles: nothing to read, no crash. */
  CHECK(rowjit_query_columns(NULL) == 0 && rowjit_query_keys(NULL) == 0 && rowjit_query_column_name(NULL, 0) == NULL);
  CHECK(strcmp(rowjit_query_text(NULL), "") == 0);
  rowjit_query_free(NULL);
  /* rowjit_expr_parse points at rowjit_query_parse for query text. */
  rowjit_expr* x = (rowjit_expr*)e;
  CHECK(rowjit_expr_parse(e, kQuery, schema, &x, &err) == ROWJIT_INVALID_INPUT && x == NULL);
  CHECK(strstr(err.message, "rowjit_query_parse") != NULL);
}

/* A failing parse: the status, the handle left NULL, the span in `err`. */
static rowjit_status parse_fails(rowjit_engine* e, const char* text, const struct ArrowSchema* schema, rowjit_error* err) {
  rowjit_query* q = (rowjit_query*)e;
  const rowjit_status s = rowjit_query_parse(e, text, schema, &q, err);
  CHECK(q == NULL);
  return s;
}

static void test_parse_errors(rowjit_engine* e, const struct ArrowSchema* schema) {
  rowjit_error err;
  /* An unknown column in an aggregate: its name's bytes, with a caret line under the text. */
  CHECK(parse_fails(e, "sum(x), avg(zz) group by g", schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(err.span_offset == 12 && err.span_length == 2);
  CHECK(strstr(err.message, "zz") != NULL && strstr(err.message, "\n") != NULL && strstr(err.message, "^~") != NULL);
  /* An unknown GROUP BY column. */
  CHECK(parse_fails(e, "sum(x) group by h", schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(err.span_offset == 16 && err.span_length == 1);
  /* A WHERE that is not bool. */
  CHECK(parse_fails(e, "sum(x) where y + 1", schema, &err) == ROWJIT_TYPE_ERROR);
  CHECK(err.span_offset >= 13);
  /* Null arguments: no span. */
  CHECK(parse_fails(e, NULL, schema, &err) == ROWJIT_INVALID_INPUT && err.span_offset == -1);
  CHECK(parse_fails(NULL, kQuery, schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(parse_fails(e, kQuery, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_parse(e, kQuery, schema, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_parse(e, kQuery, schema, NULL, NULL) == ROWJIT_INVALID_INPUT);
}

/* kQuery over batch A: WHERE y < 9 drops row 0; groups 1 (rows 2, 5), 2 (rows 1, 4), null (row 3). */
static void test_grouped_run(rowjit_engine* e, const rowjit_query* q, const rowjit_batch* a) {
  struct ArrowArray out;
  struct ArrowSchema s;
  rowjit_error err;
  const group_row all[] = {{1, 1, 1.5, 1}, {2, 207, 2.5, 1}, {NUL, 2, 6.0, 1}};
  CHECK(rowjit_query_run(e, q, a, NULL, &out, &s, &err) == ROWJIT_OK);
  CHECK(is_answer(&out, &s, all, 3));
  CHECK(strcmp(s.children[0]->name, "g") == 0 && strcmp(s.children[3]->name, "count(*) filter (where y > 0)") == 0);
  release_both(&out, &s);
  /* Under a selection of rows 1, 4, 5: group 1 is row 5 alone (y = -1: counted by no filter). */
  const uint32_t rows[] = {1, 4, 5};
  const rowjit_selection sel = {rows, 3};
  const group_row selected[] = {{1, 1, -1.0, 0}, {2, 207, 2.5, 1}};
  CHECK(rowjit_query_run(e, q, a, &sel, &out, &s, &err) == ROWJIT_OK);
  CHECK(is_answer(&out, &s, selected, 2));
  release_both(&out, &s);
  /* An empty selection: no group. */
  const rowjit_selection none = {NULL, 0};
  CHECK(rowjit_query_run(e, q, a, &none, &out, &s, &err) == ROWJIT_OK && out.length == 0 && out.n_children == 4);
  release_both(&out, &s);
  /* Selections that are not: descending, past the batch, rows missing. */
  const uint32_t down[] = {4, 1}, past[] = {1, 6};
  const rowjit_selection bad[] = {{down, 2}, {past, 2}, {NULL, 2}, {rows, -1}};
  for (int i = 0; i < 4; ++i) {
    out.release = NULL;
    CHECK(rowjit_query_run(e, q, a, &bad[i], &out, &s, &err) == ROWJIT_INVALID_INPUT && out.release == NULL);
  }
}

/* Without GROUP BY, over no rows: one row, sums and averages null, counts 0 (SQL). */
static void test_no_rows(rowjit_engine* e, const struct ArrowSchema* schema, const rowjit_batch* a) {
  rowjit_query* q = NULL;
  rowjit_error err;
  CHECK(rowjit_query_parse(e, "sum(x), count(*), avg(y), count(x) where y > 100", schema, &q, &err) == ROWJIT_OK);
  rowjit_batch* empty = import_gxy(kGA, kXA, kYA, 0);
  const rowjit_batch* batches[] = {empty, a}; /* no rows; rows none of which WHERE keeps */
  for (int b = 0; b < 2; ++b) {
    struct ArrowArray out;
    struct ArrowSchema s;
    CHECK(rowjit_query_run(e, q, batches[b], NULL, &out, &s, &err) == ROWJIT_OK);
    CHECK(out.length == 1 && out.n_children == 4);
    if (out.length == 1 && out.n_children == 4) {
      CHECK(!valid_at(out.children[0], 0));
      CHECK(valid_at(out.children[1], 0) && i64_at(out.children[1], 0) == 0);
      CHECK(!valid_at(out.children[2], 0));
      CHECK(valid_at(out.children[3], 0) && i64_at(out.children[3], 0) == 0);
    }
    release_both(&out, &s);
  }
  rowjit_batch_free(empty);
  rowjit_query_free(q);
}

/* Batches that do not fit the bound schema are refused before anything runs or changes. */
static void test_batch_mismatch(rowjit_engine* e, const rowjit_query* q, rowjit_query_state* state) {
  struct ArrowArray a, out;
  struct ArrowSchema s, out_schema;
  rowjit_batch *renamed = NULL, *retyped = NULL;
  rowjit_error err;
  gxy(kGB, kXB, kYB, 4, "h", "i", &a, &s); /* column 0 named h */
  CHECK(rowjit_batch_import(&a, &s, &renamed, &err) == ROWJIT_OK);
  gxy(kGB, kXB, kYB, 4, "g", "l", &a, &s); /* g as i64 */
  CHECK(rowjit_batch_import(&a, &s, &retyped, &err) == ROWJIT_OK);
  const int64_t groups = rowjit_query_state_groups(state);
  out.release = NULL;
  CHECK(rowjit_query_run(e, q, renamed, NULL, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(strstr(err.message, "'h'") != NULL && strstr(err.message, "'g'") != NULL && out.release == NULL);
  CHECK(rowjit_query_state_fold(e, state, renamed, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_run(e, q, retyped, NULL, &out, &out_schema, &err) == ROWJIT_TYPE_ERROR);
  CHECK(strstr(err.message, "'g'") != NULL && out.release == NULL);
  CHECK(rowjit_query_state_fold(e, state, retyped, NULL, &err) == ROWJIT_TYPE_ERROR);
  CHECK(rowjit_query_state_groups(state) == groups);
  rowjit_batch_free(renamed);
  rowjit_batch_free(retyped);
}

/* Serialized bytes, a copy of them that is cut or altered, and another query's: only the first
 * make a state. */
static void test_bad_bytes(const rowjit_query* q, const rowjit_query* other, const uint8_t* bytes, size_t n) {
  rowjit_query_state* st = (rowjit_query_state*)q;
  rowjit_error err;
  uint8_t* copy = (uint8_t*)malloc(n);
  memcpy(copy, bytes, n);
  CHECK(rowjit_query_state_deserialize(q, copy, n - 1, &st, &err) == ROWJIT_INVALID_INPUT && st == NULL);
  CHECK(strstr(err.message, "not a state") != NULL);
  CHECK(rowjit_query_state_deserialize(other, copy, n, &st, &err) == ROWJIT_INVALID_INPUT && st == NULL);
  CHECK(rowjit_query_state_deserialize(q, copy, 0, &st, &err) == ROWJIT_INVALID_INPUT && st == NULL);
  CHECK(rowjit_query_state_deserialize(q, NULL, 0, &st, &err) == ROWJIT_INVALID_INPUT && st == NULL);
  CHECK(rowjit_query_state_deserialize(q, NULL, 5, &st, &err) == ROWJIT_INVALID_INPUT && st == NULL);
  copy[0] ^= 0xff; /* the format's mark */
  CHECK(rowjit_query_state_deserialize(q, copy, n, &st, &err) == ROWJIT_INVALID_INPUT && st == NULL);
  copy[0] ^= 0xff;
  CHECK(memcmp(copy, bytes, n) == 0); /* read, never written */
  /* Random bytes of every length up to the state's, and the state's with one byte set to each of
   * a few values: refused or a state, never a crash (ASan watches the reads). */
  uint64_t r = 88172645463325252ull;
  for (size_t len = 0; len <= n; ++len) {
    for (size_t i = 0; i < len; ++i) {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      copy[i] = (uint8_t)r;
    }
    CHECK(rowjit_query_state_deserialize(q, copy, len, &st, &err) == ROWJIT_INVALID_INPUT && st == NULL);
  }
  for (size_t i = 0; i < n; ++i) {
    for (int v = 0; v < 256; v += 51) {
      memcpy(copy, bytes, n);
      copy[i] = (uint8_t)v;
      if (rowjit_query_state_deserialize(q, copy, n, &st, &err) == ROWJIT_OK) {
        struct ArrowArray out;
        struct ArrowSchema s;
        if (rowjit_query_state_finish(st, &out, &s, &err) == ROWJIT_OK) release_both(&out, &s);
        rowjit_query_state_free(st);
      } else {
        CHECK(st == NULL);
      }
    }
  }
  free(copy);
}

/* Fold A and B into two states, send B's as bytes, merge, finish: the one-pass answer over A then
 * B (WHERE drops A's row 0 and B's row 2). */
static void test_states(rowjit_engine* e, const struct ArrowSchema* schema, const rowjit_query* q) {
  const int32_t g_ab[] = {1, 2, 1, NUL, 2, 1, 2, 3, 1, NUL}, x_ab[] = {5, 7, NUL, 2, 200, 1, 3, 4, 10, NUL};
  const int64_t y_ab[] = {10, -3, 4, 6, 8, -1, 2, 5, 20, 1};
  const group_row expected[] = {{1, 1, 1.5, 1}, {2, 210, 7.0 / 3.0, 2}, {3, 4, 5.0, 1}, {NUL, 2, 3.5, 2}};
  rowjit_batch *a = import_gxy(kGA, kXA, kYA, 6), *b = import_gxy(kGB, kXB, kYB, 4), *ab = import_gxy(g_ab, x_ab, y_ab, 10);
  rowjit_query_state *sa = NULL, *sb = NULL, *received = NULL;
  rowjit_error err;
  struct ArrowArray out;
  struct ArrowSchema s;
  CHECK(rowjit_query_state_new(q, &sa, &err) == ROWJIT_OK && rowjit_query_state_new(q, &sb, &err) == ROWJIT_OK);
  CHECK(rowjit_query_state_fold(e, sa, a, NULL, &err) == ROWJIT_OK && rowjit_query_state_groups(sa) == 3);
  CHECK(rowjit_query_state_fold(e, sb, b, NULL, &err) == ROWJIT_OK && rowjit_query_state_groups(sb) == 3);
  test_batch_mismatch(e, q, sa);
  uint8_t* bytes = NULL;
  size_t n = 0;
  CHECK(rowjit_query_state_serialize(sb, &bytes, &n, &err) == ROWJIT_OK && bytes != NULL && n > 0);
  rowjit_query_state_free(sb);
  /* The receiving side parses the same text against the same schema. */
  rowjit_query* q2 = NULL;
  CHECK(rowjit_query_parse(e, kQuery, schema, &q2, &err) == ROWJIT_OK);
  CHECK(rowjit_query_state_deserialize(q2, bytes, n, &received, &err) == ROWJIT_OK && received != NULL);
  rowjit_query* other = NULL;
  CHECK(rowjit_query_parse(e, "sum(x) group by g", schema, &other, &err) == ROWJIT_OK);
  test_bad_bytes(q2, other, bytes, n);
  rowjit_bytes_free(bytes);
  rowjit_query_free(q2); /* the state keeps its query */
  CHECK(rowjit_query_state_merge(sa, received, &err) == ROWJIT_OK && rowjit_query_state_groups(sa) == 4);
  CHECK(rowjit_query_state_groups(received) == 3); /* the merged-in state is unchanged */
  CHECK(rowjit_query_state_finish(sa, &out, &s, &err) == ROWJIT_OK && is_answer(&out, &s, expected, 4));
  release_both(&out, &s);
  CHECK(rowjit_query_run(e, q, ab, NULL, &out, &s, &err) == ROWJIT_OK && is_answer(&out, &s, expected, 4));
  release_both(&out, &s);
  /* Finishing changes nothing: again, the same answer. */
  CHECK(rowjit_query_state_finish(sa, &out, &s, &err) == ROWJIT_OK && is_answer(&out, &s, expected, 4));
  release_both(&out, &s);
  /* Merges that cannot be: itself, another query's state; `sa` is unchanged. */
  rowjit_query_state* foreign = NULL;
  CHECK(rowjit_query_state_new(other, &foreign, &err) == ROWJIT_OK);
  CHECK(rowjit_query_state_merge(sa, sa, &err) == ROWJIT_INVALID_INPUT && strstr(err.message, "itself") != NULL);
  CHECK(rowjit_query_state_merge(sa, foreign, &err) == ROWJIT_INVALID_INPUT && strstr(err.message, "different") != NULL);
  CHECK(rowjit_query_state_groups(sa) == 4);
  rowjit_query_state_free(foreign);
  rowjit_query_free(other);
  rowjit_query_state_free(received);
  rowjit_query_state_free(sa);
  rowjit_batch_free(a);
  rowjit_batch_free(b);
  rowjit_batch_free(ab);
}

/* A row's error names its row; NULL arguments of every call are errors, never crashes. */
static void test_errors(rowjit_engine* e, const struct ArrowSchema* schema, const rowjit_query* q, const rowjit_batch* a) {
  rowjit_query* div = NULL;
  rowjit_query_state* st = NULL;
  rowjit_error err;
  struct ArrowArray out;
  struct ArrowSchema s;
  /* y / (x - 2): x is 2 in row 3 (row 2's null x makes a null, not an error). */
  CHECK(rowjit_query_parse(e, "sum(y / (x - 2)) group by g", schema, &div, &err) == ROWJIT_OK);
  out.release = NULL;
  CHECK(rowjit_query_run(e, div, a, NULL, &out, &s, &err) == ROWJIT_DIVISION_BY_ZERO && err.row == 3);
  CHECK(out.release == NULL);
  rowjit_query_free(div);
  CHECK(rowjit_query_run(NULL, q, a, NULL, &out, &s, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_run(e, NULL, a, NULL, &out, &s, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_run(e, q, NULL, NULL, &out, &s, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_run(e, q, a, NULL, NULL, &s, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_run(e, q, a, NULL, &out, NULL, NULL) == ROWJIT_INVALID_INPUT);
  st = (rowjit_query_state*)e;
  CHECK(rowjit_query_state_new(NULL, &st, &err) == ROWJIT_INVALID_INPUT && st == NULL);
  CHECK(rowjit_query_state_new(q, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_state_new(q, &st, &err) == ROWJIT_OK);
  CHECK(rowjit_query_state_fold(NULL, st, a, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_state_fold(e, NULL, a, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_state_fold(e, st, NULL, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_state_merge(NULL, st, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_state_merge(st, NULL, &err) == ROWJIT_INVALID_INPUT);
  uint8_t* bytes = (uint8_t*)e;
  size_t n = 7;
  CHECK(rowjit_query_state_serialize(NULL, &bytes, &n, &err) == ROWJIT_INVALID_INPUT && bytes == NULL && n == 0);
  CHECK(rowjit_query_state_serialize(st, NULL, &n, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_state_serialize(st, &bytes, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_state_deserialize(q, (const uint8_t*)"x", 1, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_state_finish(NULL, &out, &s, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_state_finish(st, NULL, &s, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_query_state_groups(NULL) == 0);
  /* An empty grouped state finishes to no rows. */
  CHECK(rowjit_query_state_finish(st, &out, &s, &err) == ROWJIT_OK && out.length == 0 && out.n_children == 4);
  release_both(&out, &s);
  rowjit_query_state_free(st);
  rowjit_query_state_free(NULL);
  rowjit_bytes_free(NULL);
}

/* Top-k: rows kept across two batches (numbered on), one state through bytes, best first; a
 * selection without where; what is refused. Batch A's rows with x > 1 are 0 (y 10), 1 (-3), 3 (6)
 * and 4 (8); batch B's, numbered from 6, are 6 (2), 7 (5) and 8 (20). */
static int is_top(const struct ArrowArray* out, const struct ArrowSchema* s, const int64_t* rows, const int64_t* ys,
                  int64_t n) {
  if (out->length != n || s->n_children != 2 || strcmp(s->children[0]->name, "row") != 0 ||
      strcmp(s->children[1]->format, "l") != 0) {
    return 0;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (i64_at(out->children[0], i) != rows[i] || i64_at(out->children[1], i) != ys[i]) return 0;
  }
  return 1;
}

static void test_top_k(rowjit_engine* e, const struct ArrowSchema* schema) {
  rowjit_batch *a = import_gxy(kGA, kXA, kYA, 6), *b = import_gxy(kGB, kXB, kYB, 4);
  rowjit_top_k *top = NULL, *low = NULL, *bad = NULL;
  rowjit_top_k_state *sa = NULL, *sb = NULL, *received = NULL;
  rowjit_error err;
  struct ArrowArray out;
  struct ArrowSchema s;
  CHECK(rowjit_top_k_parse(e, "top_k(y, 3) where x > 1", schema, &top, &err) == ROWJIT_OK && top != NULL);
  CHECK(strcmp(rowjit_top_k_text(top), "top_k(y, 3) where x > 1:i32") == 0);
  CHECK(rowjit_top_k_state_new(top, &sa, &err) == ROWJIT_OK && rowjit_top_k_state_new(top, &sb, &err) == ROWJIT_OK);
  CHECK(rowjit_top_k_state_fold(e, sa, a, 0, &err) == ROWJIT_OK);
  CHECK(rowjit_top_k_state_fold(e, sb, b, 6, &err) == ROWJIT_OK);
  uint8_t* bytes = NULL;
  size_t n = 0;
  CHECK(rowjit_top_k_state_serialize(sb, &bytes, &n, &err) == ROWJIT_OK && bytes != NULL && n > 0);
  CHECK(rowjit_top_k_state_deserialize(top, bytes, n, &received, &err) == ROWJIT_OK && received != NULL);
  CHECK(rowjit_top_k_state_merge(sa, received, &err) == ROWJIT_OK);
  const int64_t rows[] = {8, 0, 4}, ys[] = {20, 10, 8};
  CHECK(rowjit_top_k_state_finish(sa, &out, &s, &err) == ROWJIT_OK && is_top(&out, &s, rows, ys, 3));
  release_both(&out, &s);
  /* Without where: the two smallest y of batch A. */
  CHECK(rowjit_top_k_parse(e, "bottom_k(y, 2)", schema, &low, &err) == ROWJIT_OK);
  rowjit_top_k_state* sl = NULL;
  CHECK(rowjit_top_k_state_new(low, &sl, &err) == ROWJIT_OK && rowjit_top_k_state_fold(e, sl, a, 0, &err) == ROWJIT_OK);
  const int64_t low_rows[] = {1, 5}, low_ys[] = {-3, -1};
  CHECK(rowjit_top_k_state_finish(sl, &out, &s, &err) == ROWJIT_OK && is_top(&out, &s, low_rows, low_ys, 2));
  release_both(&out, &s);
  /* Refused: a selection without K, a negative first row, merging a state into itself or another
   * selection's, bytes that are no state. */
  CHECK(rowjit_top_k_parse(e, "top_k(y)", schema, &bad, &err) == ROWJIT_INVALID_INPUT && bad == NULL);
  CHECK(rowjit_top_k_state_fold(e, sa, a, -1, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_top_k_state_merge(sa, sa, &err) == ROWJIT_INVALID_INPUT && strstr(err.message, "itself") != NULL);
  CHECK(rowjit_top_k_state_merge(sa, sl, &err) == ROWJIT_INVALID_INPUT);
  rowjit_top_k_state* junk = NULL;
  const uint8_t garbage[] = "topk1 3 1 99 1\n";
  CHECK(rowjit_top_k_state_deserialize(top, garbage, sizeof garbage - 1, &junk, &err) == ROWJIT_INVALID_INPUT && junk == NULL);
  CHECK(rowjit_top_k_state_deserialize(low, bytes, n, &junk, &err) == ROWJIT_INVALID_INPUT && junk == NULL);
  CHECK(rowjit_top_k_state_finish(sa, &out, &s, &err) == ROWJIT_OK && is_top(&out, &s, rows, ys, 3)); /* unchanged */
  release_both(&out, &s);
  rowjit_bytes_free(bytes);
  rowjit_top_k_state_free(sl);
  rowjit_top_k_state_free(received);
  rowjit_top_k_state_free(sb);
  rowjit_top_k_state_free(sa);
  rowjit_top_k_free(low);
  rowjit_top_k_free(top);
  rowjit_batch_free(a);
  rowjit_batch_free(b);
}

int main(void) {
  rowjit_engine* e = new_engine();
  struct ArrowArray tmp;
  struct ArrowSchema schema; /* the schema queries bind to, kept by the test */
  gxy(kGA, kXA, kYA, 0, "g", "i", &tmp, &schema);
  tmp.release(&tmp);
  rowjit_query* q = NULL;
  CHECK(rowjit_query_parse(e, kQuery, &schema, &q, NULL) == ROWJIT_OK);
  rowjit_batch* a = import_gxy(kGA, kXA, kYA, 6);
  test_parse_and_columns(e, &schema);
  test_parse_errors(e, &schema);
  test_grouped_run(e, q, a);
  test_no_rows(e, &schema, a);
  test_states(e, &schema, q);
  test_errors(e, &schema, q, a);
  test_top_k(e, &schema);
  rowjit_batch_free(a);
  rowjit_query_free(q);
  rowjit_engine_free(e);
  schema.release(&schema);
  /* Every struct this test made was released exactly once: by rowjit or here. */
  CHECK(array_releases == arrays_made);
  CHECK(schema_releases == schemas_made);
  printf("capi_query: %d checks, %d failed (arrays %d/%d released, schemas %d/%d)\n", checks, failures,
         array_releases, arrays_made, schema_releases, schemas_made);
  return failures == 0 ? 0 : 1;
}
