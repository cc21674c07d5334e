/* The C API from C (compiled as C99): every call, its error paths, and that every ArrowArray and
 * ArrowSchema the test hands over or receives is released exactly once (counted here; ASan and
 * LeakSanitizer watch the rest in the sanitizer build). Exit status 0 when every check holds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi/rowjit.h"

static int failures = 0;
static int checks = 0;
#define CHECK(cond)                                                      \
  do {                                                                   \
    ++checks;                                                            \
    if (!(cond)) {                                                       \
      ++failures;                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                    \
  } while (0)

/* --- Arrow structs built by hand, as a C host would, with counted releases ------------------- */

static int array_releases = 0, schema_releases = 0, arrays_made = 0, schemas_made = 0;

typedef struct {
  const void* buffers[3];
  void* values;
  void* validity;
  void* bytes;  /* a string column's data */
  struct ArrowArray** children;
} array_data;

/* A parent releases its children (those not moved out) and frees their structs, which it owns. */
static void release_array(struct ArrowArray* a) {
  array_data* d = (array_data*)a->private_data;
  for (int64_t i = 0; i < a->n_children; ++i) {
    if (a->children[i]->release != NULL) a->children[i]->release(a->children[i]);
    free(a->children[i]);
  }
  if (d != NULL) {
    free(d->values);
    free(d->validity);
    free(d->bytes);
    free(d->children);
    free(d);
  }
  a->release = NULL;
  ++array_releases;
}

static void release_schema(struct ArrowSchema* s) {
  for (int64_t i = 0; i < s->n_children; ++i) {
    if (s->children[i]->release != NULL) s->children[i]->release(s->children[i]);
    free(s->children[i]);
  }
  free(s->children);
  free((void*)s->name);
  s->release = NULL;
  ++schema_releases;
}

/* A column of n rows of `width`-byte values; valid[i] == 0 makes row i null (valid NULL: none). */
static struct ArrowArray* column(const void* values, int width, const uint8_t* valid, int64_t n) {
  struct ArrowArray* a = (struct ArrowArray*)calloc(1, sizeof(struct ArrowArray));
  array_data* d = (array_data*)calloc(1, sizeof(array_data));
  d->values = malloc((size_t)(n * width) + 8);
  memcpy(d->values, values, (size_t)(n * width));
  int64_t nulls = 0;
  if (valid != NULL) {
    d->validity = calloc((size_t)(n + 7) / 8 + 1, 1);
    for (int64_t i = 0; i < n; ++i) {
      if (valid[i]) ((uint8_t*)d->validity)[i / 8] |= (uint8_t)(1u << (i % 8));
      else ++nulls;
    }
  }
  d->buffers[0] = d->validity;
  d->buffers[1] = d->values;
  a->length = n;
  a->null_count = nulls;
  a->n_buffers = 2;
  a->buffers = d->buffers;
  a->release = release_array;
  a->private_data = d;
  ++arrays_made;
  return a;
}

static struct ArrowArray* i32_array(const int32_t* values, const uint8_t* valid, int64_t n) {
  return column(values, 4, valid, n);
}

/* A utf8 column (32-bit offsets) of n rows; rows[i] == NULL makes row i null. */
static struct ArrowArray* utf8_column(const char* const* rows, int64_t n) {
  int32_t* offsets = (int32_t*)malloc((size_t)(n + 1) * 4);
  uint8_t* valid = (uint8_t*)calloc((size_t)n + 1, 1);
  offsets[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    offsets[i + 1] = offsets[i] + (int32_t)(rows[i] ? strlen(rows[i]) : 0);
    valid[i] = rows[i] != NULL;
  }
  struct ArrowArray* a = column(offsets, 4, valid, n + 1);  /* n + 1 offsets, then fixed below */
  array_data* d = (array_data*)a->private_data;
  d->bytes = malloc((size_t)offsets[n] + 1);
  for (int64_t i = 0; i < n; ++i) {
    if (rows[i]) memcpy((char*)d->bytes + offsets[i], rows[i], strlen(rows[i]));
  }
  d->buffers[2] = d->bytes;
  a->length = n;
  a->null_count = 0;
  for (int64_t i = 0; i < n; ++i) a->null_count += !valid[i];
  a->n_buffers = 3;
  free(offsets);
  free(valid);
  return a;
}

static char* dup_string(const char* text) {  /* strdup is POSIX, not C99 */
  char* out = (char*)malloc(strlen(text) + 1);
  strcpy(out, text);
  return out;
}

static struct ArrowSchema* field(const char* format, const char* name, int nullable) {
  struct ArrowSchema* s = (struct ArrowSchema*)calloc(1, sizeof(struct ArrowSchema));
  s->format = format;
  s->name = dup_string(name);
  s->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  s->release = release_schema;
  ++schemas_made;
  return s;
}

/* A struct batch of the given columns (the structs are moved into it; the shells are freed). */
static void make_batch(struct ArrowArray** cols, struct ArrowSchema** fields, int64_t n_cols, int64_t length,
                       struct ArrowArray* out, struct ArrowSchema* out_schema) {
  array_data* d = (array_data*)calloc(1, sizeof(array_data));
  d->children = (struct ArrowArray**)calloc((size_t)n_cols, sizeof(struct ArrowArray*));
  struct ArrowSchema** sc = (struct ArrowSchema**)calloc((size_t)n_cols, sizeof(struct ArrowSchema*));
  for (int64_t i = 0; i < n_cols; ++i) {
    d->children[i] = cols[i];
    sc[i] = fields[i];
  }
  d->buffers[0] = NULL;
  memset(out, 0, sizeof(*out));
  out->length = length;
  out->n_buffers = 1;
  out->n_children = n_cols;
  out->buffers = d->buffers;
  out->children = d->children;
  out->release = release_array;
  out->private_data = d;
  memset(out_schema, 0, sizeof(*out_schema));
  out_schema->format = "+s";
  out_schema->name = dup_string("");
  out_schema->n_children = n_cols;
  out_schema->children = sc;
  out_schema->release = release_schema;
  ++arrays_made;
  ++schemas_made;
}

/* The batch the tests share: a:i32? = [1, null, 3, 2000000000], b:i32 = [10, 20, 30, 2], c:i32 = [5, 5, 5, 5]. */
static void abc_batch(struct ArrowArray* out, struct ArrowSchema* out_schema) {
  const int32_t a[] = {1, 0, 3, 2000000000}, b[] = {10, 20, 30, 2}, c[] = {5, 5, 5, 5};
  const uint8_t a_valid[] = {1, 0, 1, 1};
  struct ArrowArray* cols[] = {i32_array(a, a_valid, 4), i32_array(b, NULL, 4), i32_array(c, NULL, 4)};
  struct ArrowSchema* fields[] = {field("i", "a", 1), field("i", "b", 0), field("i", "c", 0)};
  make_batch(cols, fields, 3, 4, out, out_schema);
}

static int32_t i32_at(const struct ArrowArray* a, int64_t i) { return ((const int32_t*)a->buffers[1])[a->offset + i]; }
static int valid_at(const struct ArrowArray* a, int64_t i) {
  const uint8_t* bits = (const uint8_t*)a->buffers[0];
  return bits == NULL || ((bits[(a->offset + i) / 8] >> ((a->offset + i) % 8)) & 1);
}

/* --- the tests ------------------------------------------------------------------------------- */

static rowjit_engine* new_engine(void) {
  rowjit_engine_options o;
  rowjit_engine_options_init(&o);
  o.synchronous = 1;
  rowjit_engine* e = NULL;
  rowjit_error err;
  CHECK(rowjit_engine_create(&o, &e, &err) == ROWJIT_OK && e != NULL);
  return e;
}

static void test_version_and_engines(void) {
  CHECK(strcmp(rowjit_version(), "0.1.0") == 0);
  rowjit_engine* e = NULL;
  rowjit_error err;
  CHECK(rowjit_engine_create(NULL, &e, &err) == ROWJIT_OK && e != NULL && err.code == ROWJIT_OK);
  rowjit_engine_free(e);
  rowjit_engine_free(NULL);
  rowjit_engine_options o;
  rowjit_engine_options_init(&o);
  CHECK(o.cache_capacity == 1024 && o.compile_threads == 1 && o.cache_dir == NULL);
  o.compile_threads = 0;
  e = (rowjit_engine*)&o;  /* must be reset to NULL on failure */
  CHECK(rowjit_engine_create(&o, &e, &err) == ROWJIT_INVALID_INPUT && e == NULL);
  CHECK(strstr(err.message, "compile_threads 0") != NULL && err.row == -1);
  CHECK(rowjit_engine_create(NULL, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_engine_create(NULL, NULL, NULL) == ROWJIT_INVALID_INPUT);  /* no error struct: fine */
  rowjit_engine_options_init(&o);
  o.cache_dir = "/proc/rowjit-cannot-write-here";
  CHECK(rowjit_engine_create(&o, &e, &err) != ROWJIT_OK && e == NULL);
}

static void test_parse(rowjit_engine* e, const struct ArrowSchema* schema) {
  rowjit_expr* x = NULL;
  rowjit_error err;
  CHECK(rowjit_expr_parse(e, "a * b + c", schema, &x, &err) == ROWJIT_OK && x != NULL);
  CHECK(rowjit_expr_is_aggregate(x) == 0 && strlen(rowjit_expr_text(x)) > 0);
  rowjit_expr_free(x);
  CHECK(rowjit_expr_parse(e, "sum(a * b)", schema, &x, &err) == ROWJIT_OK && rowjit_expr_is_aggregate(x) == 1);
  rowjit_expr_free(x);
  x = (rowjit_expr*)e;
  CHECK(rowjit_expr_parse(e, "a * ", schema, &x, &err) == ROWJIT_INVALID_INPUT && x == NULL);
  CHECK(strlen(err.message) > 0);
  CHECK(rowjit_expr_parse(e, "a * zz", schema, &x, &err) != ROWJIT_OK && strstr(err.message, "zz") != NULL);
  CHECK(rowjit_expr_parse(e, "a and b", schema, &x, &err) == ROWJIT_TYPE_ERROR);
  CHECK(rowjit_expr_parse(NULL, "a", schema, &x, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_expr_parse(e, NULL, schema, &x, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_expr_parse(e, "a", NULL, &x, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_expr_parse(e, "a", schema, NULL, &err) == ROWJIT_INVALID_INPUT);
  struct ArrowSchema* not_struct = field("i", "a", 0);
  CHECK(rowjit_expr_parse(e, "a", not_struct, &x, &err) == ROWJIT_INVALID_INPUT && strstr(err.message, "struct") != NULL);
  not_struct->release(not_struct);
  free(not_struct);
  rowjit_expr_free(NULL);
}

/* A failing parse of `text`: its status, with the span and message in `err` (the handle stays NULL). */
static rowjit_status parse_fails(rowjit_engine* e, const char* text, const struct ArrowSchema* schema,
                                 rowjit_error* err) {
  rowjit_expr* x = (rowjit_expr*)e;
  const rowjit_status s = rowjit_expr_parse(e, text, schema, &x, err);
  CHECK(x == NULL);
  return s;
}

static int ends_with(const char* s, const char* tail) {
  const size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Whether `s` is whole UTF-8: no character cut short (a cut message ends between characters). */
static int whole_utf8(const char* s) {
  for (const unsigned char* p = (const unsigned char*)s; *p != 0;) {
    const int n = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0) return 0;
    for (int i = 1; i < n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return 0;  /* the terminator or another lead byte: cut short */
    }
    p += n;
  }
  return 1;
}

/* Errors in an expression's text carry its span (bytes of the text) and show it under the text;
 * the offsets and carets below are counted by hand from the texts. */
static void test_error_spans(rowjit_engine* e, const struct ArrowSchema* schema) {
  rowjit_error err;
  /* An unknown function: its name, 4 bytes at 4. */
  CHECK(parse_fails(e, "a + frob(b, c)", schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(err.span_offset == 4 && err.span_length == 4 && err.row == -1);
  CHECK(strcmp(err.message, "invalid input: unknown function 'frob'\n  a + frob(b, c)\n      ^~~~") == 0);
  /* Its nearest known name is suggested. */
  CHECK(parse_fails(e, "sqroot(b)", schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(err.span_offset == 0 && err.span_length == 6 && strstr(err.message, "did you mean 'sqrt'?") != NULL);
  CHECK(ends_with(err.message, "\n  sqroot(b)\n  ^~~~~~"));
  /* An unknown column: its name, with the schema's nearest name suggested. */
  CHECK(parse_fails(e, "b * 2 + cc", schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(err.span_offset == 8 && err.span_length == 2);
  CHECK(strstr(err.message, "unknown column 'cc' (did you mean 'c'?)") != NULL);
  CHECK(ends_with(err.message, "\n  b * 2 + cc\n          ^~"));
  /* In an aggregate: offsets count from the start of the whole text. */
  CHECK(parse_fails(e, "sum(b * zz)", schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(err.span_offset == 8 && err.span_length == 2 && ends_with(err.message, "\n          ^~"));
  /* A syntax error at the end: a point (length 0) past the last byte. */
  CHECK(parse_fails(e, "a * ", schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(err.span_offset == 4 && err.span_length == 0 && ends_with(err.message, "\n      ^"));
  /* A type error: the call. */
  CHECK(parse_fails(e, "c + (a and b)", schema, &err) == ROWJIT_TYPE_ERROR);
  CHECK(err.span_offset == 5 && err.span_length == 7);

  /* A message that does not fit with its text under it: the first line, cut between UTF-8
   * characters; the span still says where. */
  char text[700] = "date_part('";
  char* p = text + strlen(text);
  for (int i = 0; i < 300; ++i) {
    *p++ = (char)0xC3; /* é */
    *p++ = (char)0xA9;
  }
  strcpy(p, "', a)");
  CHECK(parse_fails(e, text, schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(err.span_offset == 10 && err.span_length == 602);
  CHECK(strchr(err.message, '\n') == NULL && strlen(err.message) < sizeof err.message && whole_utf8(err.message));
  CHECK(strncmp(err.message, "invalid input: date_part: unknown part '", 40) == 0);

  /* Errors not about the text have no span; a call that succeeds clears it. */
  struct ArrowSchema* not_struct = field("i", "a", 0);
  CHECK(parse_fails(e, "a", not_struct, &err) == ROWJIT_INVALID_INPUT && err.span_offset == -1 && err.span_length == -1);
  not_struct->release(not_struct);
  free(not_struct);
  CHECK(parse_fails(e, "zz", schema, &err) == ROWJIT_INVALID_INPUT && err.span_offset == 0);
  rowjit_expr* x = NULL;
  CHECK(rowjit_expr_parse(e, "a + 1", schema, &x, &err) == ROWJIT_OK && err.span_offset == -1 && err.span_length == -1);
  rowjit_expr_free(x);
}

/* implicit_casts = 0: strict binding, where a literal that does not fit its sibling's type is a
 * type error at the literal. */
static void test_strict_binding(const struct ArrowSchema* schema) {
  rowjit_engine_options o;
  rowjit_engine_options_init(&o);
  CHECK(o.implicit_casts == 1);
  rowjit_engine* e = NULL;
  rowjit_error err;
  CHECK(rowjit_engine_create(&o, &e, &err) == ROWJIT_OK);
  rowjit_expr* x = NULL;
  CHECK(rowjit_expr_parse(e, "b + 1.5", schema, &x, &err) == ROWJIT_OK && strcmp(rowjit_expr_format(x), "g") == 0);
  rowjit_expr_free(x);
  rowjit_engine_free(e);
  o.implicit_casts = 0;
  CHECK(rowjit_engine_create(&o, &e, &err) == ROWJIT_OK);
  CHECK(parse_fails(e, "b + 1.5", schema, &err) == ROWJIT_TYPE_ERROR);
  CHECK(err.span_offset == 4 && err.span_length == 3 && ends_with(err.message, "\n  b + 1.5\n      ^~~"));
  CHECK(rowjit_expr_parse(e, "b + 1", schema, &x, &err) == ROWJIT_OK && strcmp(rowjit_expr_format(x), "i") == 0);
  rowjit_expr_free(x);
  rowjit_engine_free(e);
}

/* The expressions the call tests share, over abc_batch's schema. */
typedef struct {
  rowjit_expr *sum3, *mul, *pred, *agg, *minmax;
} shared_exprs;

static shared_exprs parse_shared(rowjit_engine* e, const struct ArrowSchema* schema) {
  shared_exprs x = {NULL, NULL, NULL, NULL, NULL};
  rowjit_error err;
  CHECK(rowjit_expr_parse(e, "b * 2 + c", schema, &x.sum3, &err) == ROWJIT_OK);
  CHECK(rowjit_expr_parse(e, "a * b", schema, &x.mul, &err) == ROWJIT_OK);
  CHECK(rowjit_expr_parse(e, "b > 15", schema, &x.pred, &err) == ROWJIT_OK);
  CHECK(rowjit_expr_parse(e, "sum(b * c)", schema, &x.agg, &err) == ROWJIT_OK);
  CHECK(rowjit_expr_parse(e, "min_max(b)", schema, &x.minmax, &err) == ROWJIT_OK);
  return x;
}

static void free_shared(shared_exprs* x) {
  rowjit_expr_free(x->sum3);
  rowjit_expr_free(x->mul);
  rowjit_expr_free(x->pred);
  rowjit_expr_free(x->agg);
  rowjit_expr_free(x->minmax);
}

static void test_evaluate_filter_project_aggregate(rowjit_engine* e, const rowjit_batch* batch,
                                                   const struct ArrowSchema* schema) {
  rowjit_error err;
  shared_exprs x = parse_shared(e, schema);
  rowjit_expr *sum3 = x.sum3, *mul = x.mul, *pred = x.pred, *agg = x.agg, *minmax = x.minmax;
  struct ArrowArray out;
  struct ArrowSchema out_schema;

  CHECK(rowjit_evaluate(e, sum3, batch, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(out.length == 4 && strcmp(out_schema.format, "i") == 0);
  CHECK(i32_at(&out, 0) == 25 && i32_at(&out, 1) == 45 && i32_at(&out, 2) == 65 && i32_at(&out, 3) == 9);
  out.release(&out);
  out_schema.release(&out_schema);

  /* a * b overflows in row 3 (2e9 * 2); row 1 is null. */
  memset(&out, 0, sizeof(out));
  CHECK(rowjit_evaluate(e, mul, batch, &out, &out_schema, &err) == ROWJIT_OVERFLOW);
  CHECK(err.row == 3 && strcmp(err.function, "mul") == 0 && strstr(err.message, "row 3") != NULL);
  CHECK(err.span_offset == -1 && err.span_length == -1);  /* a row's error: no span */
  CHECK(out.release == NULL);  /* nothing written on error */

  CHECK(rowjit_filter(e, pred, batch, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(out.length == 2 && strcmp(out_schema.format, "I") == 0);
  CHECK(((const uint32_t*)out.buffers[1])[out.offset] == 1 && ((const uint32_t*)out.buffers[1])[out.offset + 1] == 2);
  out.release(&out);
  out_schema.release(&out_schema);
  CHECK(rowjit_filter(e, sum3, batch, &out, &out_schema, &err) == ROWJIT_TYPE_ERROR);

  const rowjit_expr* both[] = {sum3, pred};
  CHECK(rowjit_project(e, both, 2, batch, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(out.n_children == 2 && strcmp(out_schema.format, "+s") == 0 && strcmp(out_schema.children[1]->format, "b") == 0);
  CHECK(i32_at(out.children[0], 3) == 9);
  out.release(&out);
  out_schema.release(&out_schema);
  const rowjit_expr* failing[] = {sum3, mul};
  CHECK(rowjit_project(e, failing, 2, batch, &out, &out_schema, &err) == ROWJIT_OVERFLOW);
  CHECK(err.row == 3 && strstr(err.message, "expression 1") != NULL);
  CHECK(rowjit_project(e, both, 0, batch, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_project(e, NULL, 2, batch, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);

  CHECK(rowjit_aggregate(e, agg, batch, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(out.length == 1 && strcmp(out_schema.format, "l") == 0 && ((const int64_t*)out.buffers[1])[out.offset] == 310);
  out.release(&out);
  out_schema.release(&out_schema);
  CHECK(rowjit_aggregate(e, minmax, batch, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(out.length == 2 && i32_at(&out, 0) == 2 && i32_at(&out, 1) == 30 && valid_at(&out, 1));
  out.release(&out);
  out_schema.release(&out_schema);
  CHECK(rowjit_aggregate(e, sum3, batch, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_evaluate(e, agg, batch, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);

  /* Null handles and outputs. */
  CHECK(rowjit_evaluate(NULL, sum3, batch, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_evaluate(e, NULL, batch, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_evaluate(e, sum3, NULL, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_evaluate(e, sum3, batch, NULL, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_filter(e, pred, batch, &out, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_aggregate(e, agg, NULL, &out, &out_schema, NULL) == ROWJIT_INVALID_INPUT);
  free_shared(&x);
}

static void test_batches(rowjit_engine* e, const struct ArrowSchema* schema) {
  rowjit_error err;
  rowjit_batch* b = NULL;
  /* A column shorter than the batch: refused, and both structs still released exactly once. */
  const int32_t a[] = {1, 2};
  struct ArrowArray* cols[] = {i32_array(a, NULL, 2)};
  struct ArrowSchema* fields[] = {field("i", "a", 0)};
  struct ArrowArray arr;
  struct ArrowSchema sch;
  make_batch(cols, fields, 1, 5, &arr, &sch);
  const int before_a = array_releases, before_s = schema_releases;
  b = (rowjit_batch*)e;
  CHECK(rowjit_batch_import(&arr, &sch, &b, &err) == ROWJIT_INVALID_INPUT && b == NULL);
  CHECK(arr.release == NULL && sch.release == NULL);
  CHECK(array_releases == before_a + 2 && schema_releases == before_s + 2);
  CHECK(strstr(err.message, "rows") != NULL);
  CHECK(rowjit_batch_import(NULL, &sch, &b, &err) == ROWJIT_INVALID_INPUT);
  /* No place for the handle: still released. */
  abc_batch(&arr, &sch);
  CHECK(rowjit_batch_import(&arr, &sch, NULL, &err) == ROWJIT_INVALID_INPUT && arr.release == NULL && sch.release == NULL);
  /* A batch whose column type differs from the expression's binding. */
  const int64_t wide[] = {1, 2, 3, 4};
  struct ArrowArray* wcol = column(wide, 8, NULL, 4);
  struct ArrowArray* wcols[] = {wcol};
  struct ArrowSchema* wfields[] = {field("l", "a", 0)};
  make_batch(wcols, wfields, 1, 4, &arr, &sch);
  CHECK(rowjit_batch_import(&arr, &sch, &b, &err) == ROWJIT_OK && rowjit_batch_length(b) == 4);
  rowjit_expr* x = NULL;
  CHECK(rowjit_expr_parse(e, "a + 1", schema, &x, &err) == ROWJIT_OK);
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  CHECK(rowjit_evaluate(e, x, b, &out, &out_schema, &err) == ROWJIT_TYPE_ERROR && strstr(err.message, "i64") != NULL);
  rowjit_expr_free(x);
  rowjit_batch_free(b);
  rowjit_batch_free(NULL);
  CHECK(rowjit_batch_length(NULL) == 0);
}

/* --- ownership on import, for every combination of NULL arguments ----------------------------- */

/* One struct's own release count. Its release callback is wrapped: every call is counted, and
 * the struct's real release runs on the first call only (a second call, a double release, is
 * counted and runs nothing, so that it fails a check instead of freeing twice). */
typedef struct {
  int calls;
  void (*array_release)(struct ArrowArray*);
  void (*schema_release)(struct ArrowSchema*);
  void* private_data;
} release_count;

static void counted_array_release(struct ArrowArray* a) {
  release_count* c = (release_count*)a->private_data;
  if (++c->calls == 1) {
    struct ArrowArray inner = *a;  /* the real struct, as built */
    inner.private_data = c->private_data;
    inner.release = c->array_release;
    inner.release(&inner);
  }
  a->release = NULL;
}

static void counted_schema_release(struct ArrowSchema* s) {
  release_count* c = (release_count*)s->private_data;
  if (++c->calls == 1) {
    struct ArrowSchema inner = *s;
    inner.private_data = c->private_data;
    inner.release = c->schema_release;
    inner.release(&inner);
  }
  s->release = NULL;
}

static void count_releases(struct ArrowArray* a, struct ArrowSchema* s, release_count* ac, release_count* sc) {
  memset(ac, 0, sizeof(*ac));
  memset(sc, 0, sizeof(*sc));
  ac->array_release = a->release;
  ac->private_data = a->private_data;
  a->release = counted_array_release;
  a->private_data = ac;
  sc->schema_release = s->release;
  sc->private_data = s->private_data;
  s->release = counted_schema_release;
  s->private_data = sc;
}

/* What the test passes for a struct: NULL, a live struct, or one already released. */
enum { kPassNull, kPassLive, kPassReleased };
static const char* const kPassNames[] = {"NULL", "live", "released"};

static int import_case_failures = 0;
static void check_case(int ok, const char* what, int a, int s, int with_out, int with_err, int bad) {
  ++checks;
  if (ok) return;
  ++failures;
  ++import_case_failures;
  fprintf(stderr, "rowjit_batch_import(array %s, schema %s, out %s, error %s%s): %s\n", kPassNames[a], kPassNames[s],
          with_out ? "set" : "NULL", with_err ? "set" : "NULL", bad ? ", a batch refused" : "", what);
}

/* One combination: the status, *out and the error as documented, and each struct passed released
 * exactly once by rowjit (a live one: once; an already released one: not again), none twice. */
static void import_case(int a, int s, int with_out, int with_err, int bad) {
  struct ArrowArray arr;
  struct ArrowSchema sch;
  if (bad) {  /* a column shorter than the batch */
    const int32_t v[] = {1, 2};
    struct ArrowArray* cols[] = {i32_array(v, NULL, 2)};
    struct ArrowSchema* fields[] = {field("i", "a", 0)};
    make_batch(cols, fields, 1, 5, &arr, &sch);
  } else {
    abc_batch(&arr, &sch);
  }
  release_count ac, sc;
  count_releases(&arr, &sch, &ac, &sc);
  if (a == kPassReleased) arr.release(&arr);
  if (s == kPassReleased) sch.release(&sch);
  const int array_before = ac.calls, schema_before = sc.calls;
  rowjit_batch* b = (rowjit_batch*)&arr;  /* must be reset to NULL on failure */
  rowjit_error err;
  memset(&err, 0x5a, sizeof(err));
  const rowjit_status st = rowjit_batch_import(a == kPassNull ? NULL : &arr, s == kPassNull ? NULL : &sch,
                                               with_out ? &b : NULL, with_err ? &err : NULL);
  const int succeeds = a == kPassLive && s == kPassLive && with_out && !bad;
  check_case(st == (succeeds ? ROWJIT_OK : ROWJIT_INVALID_INPUT), "status", a, s, with_out, with_err, bad);
  if (with_out) check_case(succeeds ? b != NULL : b == NULL, "*out", a, s, with_out, with_err, bad);
  if (with_err) {
    check_case(err.code == st && err.row == -1 && (succeeds || strlen(err.message) > 0), "error", a, s, with_out,
               with_err, bad);
  }
  /* On return: every struct passed has a NULL release; the schema is released; so is the array
   * unless a batch now holds it. */
  if (a != kPassNull) check_case(arr.release == NULL, "array.release not NULL on return", a, s, with_out, with_err, bad);
  if (s != kPassNull) check_case(sch.release == NULL, "schema.release not NULL on return", a, s, with_out, with_err, bad);
  if (s == kPassLive) check_case(sc.calls == 1, "schema not released exactly once", a, s, with_out, with_err, bad);
  if (a == kPassLive && !succeeds) check_case(ac.calls == 1, "array not released exactly once", a, s, with_out, with_err, bad);
  if (succeeds) {
    check_case(ac.calls == 0 && rowjit_batch_length(b) == 4, "array released while the batch holds it", a, s, with_out,
               with_err, bad);
    rowjit_batch_free(b);
    check_case(ac.calls == 1, "array not released exactly once after rowjit_batch_free", a, s, with_out, with_err, bad);
  }
  if (a == kPassReleased) check_case(ac.calls == array_before, "released array released again", a, s, with_out, with_err, bad);
  if (s == kPassReleased) check_case(sc.calls == schema_before, "released schema released again", a, s, with_out, with_err, bad);
  /* What the test did not pass is the test's to release (rowjit must not have touched it). */
  if (a == kPassNull) {
    check_case(ac.calls == 0 && arr.release != NULL, "array released though not passed", a, s, with_out, with_err, bad);
    if (arr.release != NULL) arr.release(&arr);
  }
  if (s == kPassNull) {
    check_case(sc.calls == 0 && sch.release != NULL, "schema released though not passed", a, s, with_out, with_err, bad);
    if (sch.release != NULL) sch.release(&sch);
  }
  check_case(ac.calls == 1 && sc.calls == 1, "a struct released twice, or never", a, s, with_out, with_err, bad);
}

/* Every combination of array, schema (each NULL, live or already released), out and error (each
 * NULL or set), and a refused batch with every out/error combination. */
static void test_import_ownership(void) {
  int cases = 0;
  for (int a = kPassNull; a <= kPassReleased; ++a) {
    for (int s = kPassNull; s <= kPassReleased; ++s) {
      for (int with_out = 0; with_out <= 1; ++with_out) {
        for (int with_err = 0; with_err <= 1; ++with_err) {
          import_case(a, s, with_out, with_err, 0);
          ++cases;
          if (a == kPassLive && s == kPassLive) {
            import_case(a, s, with_out, with_err, 1);
            ++cases;
          }
        }
      }
    }
  }
  CHECK(cases == 40 && import_case_failures == 0);
}

/* Strings in and out: a utf8 column imported zero-copy, a predicate over it, a string-valued
 * result exported as an Arrow utf8 array, and a parse error naming its row. */
static void s_batch(struct ArrowArray* out, struct ArrowSchema* out_schema) {
  const char* const rows[] = {"ab", "x", NULL, "abc"};
  struct ArrowArray* cols[] = {utf8_column(rows, 4)};
  struct ArrowSchema* fields[] = {field("u", "s", 1)};
  make_batch(cols, fields, 1, 4, out, out_schema);
}

static void test_strings(rowjit_engine* e) {
  struct ArrowArray arr, tmp, out;
  struct ArrowSchema sch, kept, out_schema;
  rowjit_error err;
  s_batch(&arr, &sch);
  s_batch(&tmp, &kept);
  tmp.release(&tmp);
  rowjit_batch* b = NULL;
  CHECK(rowjit_batch_import(&arr, &sch, &b, &err) == ROWJIT_OK && rowjit_batch_length(b) == 4);
  rowjit_expr* x = NULL;
  CHECK(rowjit_expr_parse(e, "s = 'ab' or s like '%c'", &kept, &x, &err) == ROWJIT_OK);
  CHECK(rowjit_evaluate(e, x, b, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(strcmp(out_schema.format, "b") == 0 && out.length == 4);
  const uint8_t bits = ((const uint8_t*)out.buffers[1])[0];
  CHECK((bits & 1) == 1 && (bits & 2) == 0 && (bits & 8) == 8);
  CHECK(valid_at(&out, 0) && valid_at(&out, 1) && !valid_at(&out, 2) && valid_at(&out, 3));
  out.release(&out);
  out_schema.release(&out_schema);
  rowjit_expr_free(x);
  CHECK(rowjit_expr_parse(e, "upper(s) || '!'", &kept, &x, &err) == ROWJIT_OK);
  CHECK(rowjit_evaluate(e, x, b, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(out.length == 4 && !valid_at(&out, 2));
  if (strcmp(out_schema.format, "u") == 0 && out.n_buffers == 3) {
    const int32_t* off = (const int32_t*)out.buffers[1] + out.offset;
    const char* data = (const char*)out.buffers[2];
    CHECK(off[1] - off[0] == 3 && memcmp(data + off[0], "AB!", 3) == 0);
    CHECK(off[4] - off[3] == 4 && memcmp(data + off[3], "ABC!", 4) == 0);
  } else {
    CHECK(strcmp(out_schema.format, "u") == 0);  /* results are 32-bit-offset utf8 */
  }
  out.release(&out);
  out_schema.release(&out_schema);
  rowjit_expr_free(x);
  /* A projection of a string and a number over a string-valued call: a struct of "u" and "l". */
  rowjit_expr *shout = NULL, *len = NULL;
  CHECK(rowjit_expr_parse(e, "upper(s) || '!'", &kept, &shout, &err) == ROWJIT_OK);
  CHECK(rowjit_expr_parse(e, "length(lower(s))", &kept, &len, &err) == ROWJIT_OK);
  const rowjit_expr* pair[] = {shout, len};
  CHECK(rowjit_project(e, pair, 2, b, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(out.n_children == 2 && strcmp(out_schema.children[0]->format, "u") == 0 &&
        strcmp(out_schema.children[1]->format, "l") == 0);
  {
    const struct ArrowArray* text = out.children[0];
    const int32_t* off = (const int32_t*)text->buffers[1] + text->offset;
    CHECK(off[1] - off[0] == 3 && memcmp((const char*)text->buffers[2] + off[0], "AB!", 3) == 0);
    const struct ArrowArray* n = out.children[1];
    CHECK(((const int64_t*)n->buffers[1])[n->offset + 3] == 3 && !valid_at(n, 2));
  }
  out.release(&out);
  out_schema.release(&out_schema);
  rowjit_expr_free(shout);
  rowjit_expr_free(len);
  CHECK(rowjit_expr_parse(e, "cast(s, i32)", &kept, &x, &err) == ROWJIT_OK);
  CHECK(rowjit_evaluate(e, x, b, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT && err.row == 0);
  CHECK(strstr(err.message, "not a valid i32") != NULL);
  rowjit_expr_free(x);
  rowjit_batch_free(b);
  kept.release(&kept);
}

/* Engine types beyond numbers: k:i64, t:timestamp(us, UTC) ("tsu:UTC"), d:decimal64(12,2) ("d:12,2,64"). */
static void typed_batch(struct ArrowArray* out, struct ArrowSchema* out_schema) {
  const int64_t k[] = {INT64_MAX, INT64_MAX, 2, 0};
  const int64_t t[] = {1700000000000000, 1600000000000000, -5, 0};
  const int64_t d[] = {12345, -5, 999999999999, 0};
  const uint8_t valid[] = {1, 1, 1, 0};
  struct ArrowArray* cols[] = {column(k, 8, NULL, 4), column(t, 8, valid, 4), column(d, 8, valid, 4)};
  struct ArrowSchema* fields[] = {field("l", "k", 0), field("tsu:UTC", "t", 1), field("d:12,2,64", "d", 1)};
  make_batch(cols, fields, 3, 4, out, out_schema);
}

static void test_logical_types_and_wide_sums(rowjit_engine* e) {
  struct ArrowArray arr, tmp, out;
  struct ArrowSchema sch, kept, out_schema;
  rowjit_error err;
  typed_batch(&arr, &sch);
  typed_batch(&tmp, &kept);
  tmp.release(&tmp);
  rowjit_batch* b = NULL;
  CHECK(rowjit_batch_import(&arr, &sch, &b, &err) == ROWJIT_OK);
  rowjit_expr* x = NULL;
  /* sum(i64) is exact past i64: decimal(38,0), exported as a 16-byte decimal128 ("d:38,0"). */
  CHECK(rowjit_expr_parse(e, "sum(k)", &kept, &x, &err) == ROWJIT_OK);
  CHECK(rowjit_aggregate(e, x, b, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(strcmp(out_schema.format, "d:38,0") == 0 && out.length == 1 && valid_at(&out, 0));
  const uint64_t* limbs = (const uint64_t*)out.buffers[1];
  CHECK(limbs[0] == 0 && limbs[1] == 1);  /* 2 * (2^63 - 1) + 2 = 2^64: low limb 0, high limb 1 */
  out.release(&out);
  out_schema.release(&out_schema);
  rowjit_expr_free(x);
  /* Timestamps compare as instants; the result of if() keeps the type and its zone. */
  CHECK(rowjit_expr_parse(e, "if(t < t, t, t)", &kept, &x, &err) == ROWJIT_OK);
  CHECK(rowjit_evaluate(e, x, b, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(strcmp(out_schema.format, "tsu:UTC") == 0 && out.length == 4 && !valid_at(&out, 3));
  CHECK(((const int64_t*)out.buffers[1])[out.offset + 2] == -5);
  out.release(&out);
  out_schema.release(&out_schema);
  rowjit_expr_free(x);
  CHECK(rowjit_expr_parse(e, "sum(d)", &kept, &x, &err) == ROWJIT_OK);
  CHECK(rowjit_aggregate(e, x, b, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(strcmp(out_schema.format, "d:38,2") == 0 && ((const int64_t*)out.buffers[1])[0] == 12345 - 5 + 999999999999);
  out.release(&out);
  out_schema.release(&out_schema);
  rowjit_expr_free(x);
  /* Arithmetic on a timestamp has no rule yet: a type error, not a number. */
  CHECK(rowjit_expr_parse(e, "t + t", &kept, &x, &err) == ROWJIT_TYPE_ERROR && x == NULL);
  CHECK(strstr(err.message, "add does not take timestamp(us, UTC)") != NULL);
  rowjit_batch_free(b);
  kept.release(&kept);
}

/* --- prepared handles ------------------------------------------------------------------------- */

static void release_both(struct ArrowArray* out, struct ArrowSchema* out_schema) {
  out->release(out);
  out_schema->release(out_schema);
}

static void test_prepared(rowjit_engine* e, const rowjit_batch* batch, const struct ArrowSchema* schema) {
  rowjit_error err;
  shared_exprs x = parse_shared(e, schema);
  rowjit_expr *sum3 = x.sum3, *mul = x.mul, *pred = x.pred, *agg = x.agg, *minmax = x.minmax;
  rowjit_prepared *p_sum3 = NULL, *p_mul = NULL, *p_pred = NULL, *p_agg = NULL, *p_minmax = NULL, *p_proj = NULL;
  CHECK(rowjit_prepare(e, sum3, &p_sum3, &err) == ROWJIT_OK && p_sum3 != NULL);
  CHECK(rowjit_prepare(e, mul, &p_mul, &err) == ROWJIT_OK);
  CHECK(rowjit_prepare(e, pred, &p_pred, &err) == ROWJIT_OK);
  CHECK(rowjit_prepare(e, agg, &p_agg, &err) == ROWJIT_OK);
  CHECK(rowjit_prepare(e, minmax, &p_minmax, &err) == ROWJIT_OK);
  const rowjit_expr* both[] = {sum3, pred};
  CHECK(rowjit_prepare_projection(e, both, 2, &p_proj, &err) == ROWJIT_OK);
  CHECK(rowjit_prepared_layouts(p_sum3) == 0);
  struct ArrowArray out;
  struct ArrowSchema out_schema;

  for (int call = 0; call < 3; ++call) {  /* the first call plans the layout, later ones run it */
    CHECK(rowjit_prepared_evaluate(p_sum3, batch, &out, &out_schema, &err) == ROWJIT_OK);
    CHECK(out.length == 4 && strcmp(out_schema.format, "i") == 0);
    CHECK(i32_at(&out, 0) == 25 && i32_at(&out, 1) == 45 && i32_at(&out, 2) == 65 && i32_at(&out, 3) == 9);
    release_both(&out, &out_schema);
    CHECK(rowjit_prepared_layouts(p_sum3) == 1);

    memset(&out, 0, sizeof(out));
    CHECK(rowjit_prepared_evaluate(p_mul, batch, &out, &out_schema, &err) == ROWJIT_OVERFLOW);
    CHECK(err.row == 3 && strcmp(err.function, "mul") == 0 && strstr(err.message, "row 3") != NULL);
    CHECK(out.release == NULL);

    CHECK(rowjit_prepared_filter(p_pred, batch, &out, &out_schema, &err) == ROWJIT_OK);
    CHECK(out.length == 2 && strcmp(out_schema.format, "I") == 0);
    CHECK(((const uint32_t*)out.buffers[1])[out.offset] == 1 && ((const uint32_t*)out.buffers[1])[out.offset + 1] == 2);
    release_both(&out, &out_schema);

    CHECK(rowjit_prepared_project(p_proj, batch, &out, &out_schema, &err) == ROWJIT_OK);
    CHECK(out.n_children == 2 && strcmp(out_schema.children[0]->name, "0") == 0);
    CHECK(strcmp(out_schema.children[1]->format, "b") == 0 && i32_at(out.children[0], 3) == 9);
    release_both(&out, &out_schema);

    CHECK(rowjit_prepared_aggregate(p_agg, batch, &out, &out_schema, &err) == ROWJIT_OK);
    CHECK(out.length == 1 && strcmp(out_schema.format, "l") == 0 && ((const int64_t*)out.buffers[1])[out.offset] == 310);
    release_both(&out, &out_schema);
    CHECK(rowjit_prepared_aggregate(p_minmax, batch, &out, &out_schema, &err) == ROWJIT_OK);
    CHECK(out.length == 2 && i32_at(&out, 0) == 2 && i32_at(&out, 1) == 30 && valid_at(&out, 1));
    release_both(&out, &out_schema);
  }
  CHECK(rowjit_prepared_layouts(p_agg) == 1 && rowjit_prepared_layouts(NULL) == 0);

  /* A call that does not fit what was prepared names the call that does. */
  CHECK(rowjit_prepared_evaluate(p_agg, batch, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(strstr(err.message, "rowjit_prepared_aggregate") != NULL && strstr(err.message, "sum") != NULL);
  CHECK(rowjit_prepared_aggregate(p_sum3, batch, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(strstr(err.message, "rowjit_prepared_evaluate") != NULL);
  CHECK(rowjit_prepared_project(p_sum3, batch, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_prepared_filter(p_proj, batch, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(strstr(err.message, "rowjit_prepared_project") != NULL && strstr(err.message, "2 expressions") != NULL);
  CHECK(rowjit_prepared_filter(p_sum3, batch, &out, &out_schema, &err) == ROWJIT_TYPE_ERROR);  /* not bool */

  /* Null handles and outputs; bad projections. */
  rowjit_prepared* p = (rowjit_prepared*)e;
  CHECK(rowjit_prepare(NULL, sum3, &p, &err) == ROWJIT_INVALID_INPUT && p == NULL);
  CHECK(rowjit_prepare(e, NULL, &p, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_prepare(e, sum3, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_prepare_projection(e, both, 0, &p, &err) == ROWJIT_INVALID_INPUT && p == NULL);
  CHECK(rowjit_prepare_projection(e, NULL, 2, &p, &err) == ROWJIT_INVALID_INPUT);
  const rowjit_expr* with_null[] = {sum3, NULL};
  CHECK(rowjit_prepare_projection(e, with_null, 2, &p, &err) == ROWJIT_INVALID_INPUT &&
        strstr(err.message, "expression 1 is null") != NULL);
  const rowjit_expr* with_agg[] = {sum3, agg};
  CHECK(rowjit_prepare_projection(e, with_agg, 2, &p, &err) == ROWJIT_INVALID_INPUT && strstr(err.message, "aggregate") != NULL);
  CHECK(rowjit_prepared_evaluate(NULL, batch, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_prepared_evaluate(p_sum3, NULL, &out, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_prepared_evaluate(p_sum3, batch, NULL, &out_schema, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_prepared_aggregate(p_agg, batch, &out, NULL, NULL) == ROWJIT_INVALID_INPUT);

  /* A batch whose column `b` is i64: the engine's type error, and the handle still answers after. */
  const int64_t wide[] = {1, 2, 3, 4};
  const int32_t narrow[] = {5, 5, 5, 5};
  struct ArrowArray* wcols[] = {column(narrow, 4, NULL, 4), column(wide, 8, NULL, 4), column(narrow, 4, NULL, 4)};
  struct ArrowSchema* wfields[] = {field("i", "a", 1), field("l", "b", 0), field("i", "c", 0)};
  struct ArrowArray arr;
  struct ArrowSchema sch;
  make_batch(wcols, wfields, 3, 4, &arr, &sch);
  rowjit_batch* wb = NULL;
  CHECK(rowjit_batch_import(&arr, &sch, &wb, &err) == ROWJIT_OK);
  CHECK(rowjit_prepared_evaluate(p_sum3, wb, &out, &out_schema, &err) == ROWJIT_TYPE_ERROR && strstr(err.message, "i64") != NULL);
  rowjit_error direct;
  CHECK(rowjit_evaluate(e, sum3, wb, &out, &out_schema, &direct) == ROWJIT_TYPE_ERROR);
  CHECK(strcmp(err.message, direct.message) == 0);
  CHECK(rowjit_prepared_aggregate(p_agg, wb, &out, &out_schema, &err) == ROWJIT_TYPE_ERROR);
  CHECK(rowjit_prepared_evaluate(p_sum3, batch, &out, &out_schema, &err) == ROWJIT_OK && i32_at(&out, 3) == 9);
  release_both(&out, &out_schema);
  rowjit_batch_free(wb);

  /* A handle keeps its engine and expression: both freed first, it still runs. */
  rowjit_engine* e2 = new_engine();
  rowjit_expr* x2 = NULL;
  rowjit_prepared* p2 = NULL;
  CHECK(rowjit_expr_parse(e2, "c - b", schema, &x2, &err) == ROWJIT_OK);
  CHECK(rowjit_prepare(e2, x2, &p2, &err) == ROWJIT_OK);
  rowjit_expr_free(x2);
  rowjit_engine_free(e2);
  CHECK(rowjit_prepared_evaluate(p2, batch, &out, &out_schema, &err) == ROWJIT_OK);
  CHECK(i32_at(&out, 0) == -5 && i32_at(&out, 3) == 3);
  release_both(&out, &out_schema);
  rowjit_prepared_free(p2);
  rowjit_prepared_free(NULL);

  rowjit_prepared_free(p_sum3);
  rowjit_prepared_free(p_mul);
  rowjit_prepared_free(p_pred);
  rowjit_prepared_free(p_agg);
  rowjit_prepared_free(p_minmax);
  rowjit_prepared_free(p_proj);
  free_shared(&x);
}

/* Results into caller memory: values and validity as Arrow lays them out, bits past the last row
 * zero, the null count; errors for short or missing buffers, strings, aggregates. */
static void test_prepared_into(rowjit_engine* e, const rowjit_batch* batch, const struct ArrowSchema* schema) {
  rowjit_error err;
  rowjit_expr *sum = NULL, *cmp = NULL, *mul = NULL, *agg = NULL;
  CHECK(rowjit_expr_parse(e, "a + b", schema, &sum, &err) == ROWJIT_OK);
  CHECK(rowjit_expr_parse(e, "b > 15", schema, &cmp, &err) == ROWJIT_OK);
  CHECK(rowjit_expr_parse(e, "a * b", schema, &mul, &err) == ROWJIT_OK);
  CHECK(rowjit_expr_parse(e, "sum(b * c)", schema, &agg, &err) == ROWJIT_OK);
  CHECK(strcmp(rowjit_expr_format(sum), "i") == 0 && rowjit_expr_nullable(sum) == 1);
  CHECK(strcmp(rowjit_expr_format(cmp), "b") == 0 && rowjit_expr_nullable(cmp) == 0);
  CHECK(strcmp(rowjit_expr_format(agg), "l") == 0 && rowjit_expr_nullable(agg) == 1);
  CHECK(strcmp(rowjit_expr_format(NULL), "") == 0 && rowjit_expr_nullable(NULL) == 0);
  rowjit_prepared *p_sum = NULL, *p_cmp = NULL, *p_mul = NULL, *p_agg = NULL;
  CHECK(rowjit_prepare(e, sum, &p_sum, &err) == ROWJIT_OK);
  CHECK(rowjit_prepare(e, cmp, &p_cmp, &err) == ROWJIT_OK);
  CHECK(rowjit_prepare(e, mul, &p_mul, &err) == ROWJIT_OK);
  CHECK(rowjit_prepare(e, agg, &p_agg, &err) == ROWJIT_OK);
  uint64_t values[2], validity[1];
  for (int call = 0; call < 2; ++call) {
    memset(values, 0xab, sizeof(values));
    memset(validity, 0xab, sizeof(validity));
    rowjit_output out = {values, sizeof(values), validity, sizeof(validity)};
    int64_t nulls = -7;
    CHECK(rowjit_prepared_evaluate_into(p_sum, batch, &out, &nulls, &err) == ROWJIT_OK);
    const int32_t* v = (const int32_t*)values;
    CHECK(v[0] == 11 && v[2] == 33 && v[3] == 2000000002);  /* a = [1, null, 3, 2e9], b = [10, 20, 30, 2] */
    CHECK(validity[0] == 13u && nulls == 1);                /* rows 0, 2, 3 valid; later bits zero */
    memset(values, 0xab, sizeof(values));
    out.validity = NULL;  /* optional: the result cannot be null */
    out.validity_bytes = 0;
    CHECK(rowjit_prepared_evaluate_into(p_cmp, batch, &out, NULL, &err) == ROWJIT_OK);
    CHECK(values[0] == 6u);  /* b > 15: rows 1 and 2, as bits; the rest of the word zero */
  }
  /* The same from raw column buffers: a = [1, null, 3, 2e9], b = [10, 20, 30, 2] (c unread). */
  const int32_t a_values[4] = {1, 0, 3, 2000000000}, b_values[4] = {10, 20, 30, 2};
  const uint64_t a_valid[1] = {13u};
  const rowjit_column raw[3] = {{a_values, a_valid}, {b_values, NULL}, {NULL, NULL}};
  for (int call = 0; call < 3; ++call) {
    memset(values, 0xab, sizeof(values));
    memset(validity, 0xab, sizeof(validity));
    rowjit_output out = {values, sizeof(values), validity, sizeof(validity)};
    int64_t nulls = -7;
    CHECK(rowjit_prepared_evaluate_buffers(p_sum, raw, 3, 4, &out, &nulls, &err) == ROWJIT_OK);
    const int32_t* v = (const int32_t*)values;
    CHECK(v[0] == 11 && v[2] == 33 && v[3] == 2000000002);
    CHECK(validity[0] == 13u && nulls == 1);
  }
  {
    rowjit_output out = {values, sizeof(values), validity, sizeof(validity)};
    int64_t nulls = 0;
    CHECK(rowjit_prepared_evaluate_buffers(p_mul, raw, 3, 4, &out, &nulls, &err) == ROWJIT_OVERFLOW && err.row == 3);
    CHECK(rowjit_prepared_evaluate_buffers(p_sum, raw, 1, 4, &out, &nulls, &err) == ROWJIT_INVALID_INPUT);
    CHECK(strstr(err.message, "1 column buffer given") != NULL);
    CHECK(rowjit_prepared_evaluate_buffers(p_sum, NULL, 3, 4, &out, &nulls, &err) == ROWJIT_INVALID_INPUT);
    CHECK(rowjit_prepared_evaluate_buffers(p_agg, raw, 3, 4, &out, &nulls, &err) == ROWJIT_INVALID_INPUT);
    out.values = (void*)b_values; /* over an input: refused, the input untouched */
    CHECK(rowjit_prepared_evaluate_buffers(p_sum, raw, 3, 4, &out, &nulls, &err) == ROWJIT_INVALID_INPUT);
    CHECK(strstr(err.message, "overlap an input's") != NULL && b_values[3] == 2);
  }
  rowjit_output out = {values, sizeof(values), validity, sizeof(validity)};
  int64_t nulls = 0;
  CHECK(rowjit_prepared_evaluate_into(p_mul, batch, &out, &nulls, &err) == ROWJIT_OVERFLOW && err.row == 3);
  out.values_bytes = 8;  /* four i32 rows need 16 */
  CHECK(rowjit_prepared_evaluate_into(p_sum, batch, &out, &nulls, &err) == ROWJIT_INVALID_INPUT);
  CHECK(strlen(err.message) > 0);
  out.values_bytes = sizeof(values);
  out.validity = NULL;  /* required: a + b may be null */
  out.validity_bytes = 0;
  CHECK(rowjit_prepared_evaluate_into(p_sum, batch, &out, &nulls, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_prepared_evaluate_into(p_sum, batch, NULL, &nulls, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_prepared_evaluate_into(NULL, batch, &out, &nulls, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_prepared_evaluate_into(p_sum, NULL, &out, &nulls, &err) == ROWJIT_INVALID_INPUT);
  out.validity = validity;
  out.validity_bytes = sizeof(validity);
  CHECK(rowjit_prepared_evaluate_into(p_agg, batch, &out, &nulls, &err) == ROWJIT_INVALID_INPUT);
  CHECK(strstr(err.message, "rowjit_prepared_aggregate") != NULL);
  /* A projection into caller memory: each output its own buffers, its null count. */
  const rowjit_expr* members[] = {sum, cmp};
  rowjit_prepared* p_two = NULL;
  CHECK(rowjit_prepare_projection(e, members, 2, &p_two, &err) == ROWJIT_OK);
  uint64_t bits[1];
  rowjit_output outs[2] = {{values, sizeof(values), validity, sizeof(validity)}, {bits, sizeof(bits), NULL, 0}};
  for (int call = 0; call < 2; ++call) {
    memset(values, 0xab, sizeof(values));
    memset(validity, 0xab, sizeof(validity));
    memset(bits, 0xab, sizeof(bits));
    int64_t counts[2] = {-7, -7};
    CHECK(rowjit_prepared_project_into(p_two, batch, outs, 2, counts, &err) == ROWJIT_OK);
    const int32_t* v = (const int32_t*)values;
    CHECK(v[0] == 11 && v[2] == 33 && v[3] == 2000000002 && validity[0] == 13u && counts[0] == 1);
    CHECK(bits[0] == 6u && counts[1] == 0);
  }
  CHECK(rowjit_prepared_project_into(p_two, batch, outs, 1, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(strstr(err.message, "1 outputs for a projection of 2") != NULL);
  CHECK(rowjit_prepared_project_into(p_two, batch, NULL, 2, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(rowjit_prepared_project_into(p_sum, batch, outs, 2, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(strstr(err.message, "rowjit_prepared_evaluate") != NULL);
  outs[1].values = values;  /* two outputs over one buffer */
  CHECK(rowjit_prepared_project_into(p_two, batch, outs, 2, NULL, &err) == ROWJIT_INVALID_INPUT);
  CHECK(strstr(err.message, "overlap") != NULL);
  rowjit_prepared_free(p_two);
  /* Strings have no fixed-width layout. */
  struct ArrowArray arr, tmp;
  struct ArrowSchema sch, kept;
  s_batch(&arr, &sch);
  s_batch(&tmp, &kept);
  tmp.release(&tmp);
  rowjit_batch* sb = NULL;
  rowjit_expr* upper = NULL;
  rowjit_prepared* p_upper = NULL;
  CHECK(rowjit_batch_import(&arr, &sch, &sb, &err) == ROWJIT_OK);
  CHECK(rowjit_expr_parse(e, "s || '!'", &kept, &upper, &err) == ROWJIT_OK && strcmp(rowjit_expr_format(upper), "u") == 0);
  CHECK(rowjit_prepare(e, upper, &p_upper, &err) == ROWJIT_OK);
  CHECK(rowjit_prepared_evaluate_into(p_upper, sb, &out, &nulls, &err) == ROWJIT_INVALID_INPUT);
  CHECK(strstr(err.message, "strings") != NULL);
  rowjit_prepared_free(p_upper);
  rowjit_expr_free(upper);
  rowjit_batch_free(sb);
  kept.release(&kept);
  rowjit_prepared_free(p_sum);
  rowjit_prepared_free(p_cmp);
  rowjit_prepared_free(p_mul);
  rowjit_prepared_free(p_agg);
  rowjit_expr_free(sum);
  rowjit_expr_free(cmp);
  rowjit_expr_free(mul);
  rowjit_expr_free(agg);
}

/* Prepared against direct calls over random batches (the seed is printed on a mismatch): lengths
 * around 64, column `a` with scattered nulls, without a bitmap or all null, values that sometimes
 * overflow `a * b + c`; every call kind, value for value, null for null, error row for error row. */
static uint64_t rng_state;
static uint64_t next_random(void) {  /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ull;
}

static void random_batch(int64_t n, int a_nulls, int wide, struct ArrowArray* out, struct ArrowSchema* out_schema) {
  int32_t* v[3];
  uint8_t* a_valid = (uint8_t*)malloc((size_t)n + 1);
  for (int k = 0; k < 3; ++k) {
    v[k] = (int32_t*)malloc((size_t)n * 4 + 4);
    for (int64_t i = 0; i < n; ++i) {
      v[k][i] = (int32_t)(next_random() % 2001) - 1000;
      if (wide && next_random() % 97 == 0) v[k][i] = (int32_t)(next_random() >> 33);
    }
  }
  for (int64_t i = 0; i < n; ++i) a_valid[i] = a_nulls == 2 ? 0 : (uint8_t)(next_random() % 3 != 0);
  struct ArrowArray* cols[] = {i32_array(v[0], a_nulls ? a_valid : NULL, n), i32_array(v[1], NULL, n),
                               i32_array(v[2], NULL, n)};
  struct ArrowSchema* fields[] = {field("i", "a", 1), field("i", "b", 0), field("i", "c", 0)};
  make_batch(cols, fields, 3, n, out, out_schema);
  for (int k = 0; k < 3; ++k) free(v[k]);
  free(a_valid);
}

/* Two results of the same call: equal formats, lengths, validity and values (4-byte or 1-bit
 * values, children compared one by one). */
static int same_array(const struct ArrowArray* x, const struct ArrowSchema* xs, const struct ArrowArray* y,
                      const struct ArrowSchema* ys) {
  if (strcmp(xs->format, ys->format) != 0 || x->length != y->length || x->n_children != y->n_children) return 0;
  for (int64_t c = 0; c < x->n_children; ++c) {
    if (!same_array(x->children[c], xs->children[c], y->children[c], ys->children[c])) return 0;
  }
  if (x->n_children > 0) return 1;
  const int bit = strcmp(xs->format, "b") == 0;
  const int width = strcmp(xs->format, "l") == 0 ? 8 : 4;
  for (int64_t i = 0; i < x->length; ++i) {
    if (valid_at(x, i) != valid_at(y, i)) return 0;
    if (!valid_at(x, i)) continue;
    if (bit) {
      const int64_t xi = x->offset + i, yi = y->offset + i;
      const int xb = (((const uint8_t*)x->buffers[1])[xi / 8] >> (xi % 8)) & 1;
      const int yb = (((const uint8_t*)y->buffers[1])[yi / 8] >> (yi % 8)) & 1;
      if (xb != yb) return 0;
    } else if (memcmp((const char*)x->buffers[1] + (x->offset + i) * width,
                      (const char*)y->buffers[1] + (y->offset + i) * width, (size_t)width) != 0) {
      return 0;
    }
  }
  return 1;
}

/* An exported result against the same result in lent memory (i32 values, or bits): validity,
 * values of valid rows, the null count. */
static int same_as_lent(const struct ArrowArray* d, int bit, const void* values, const uint64_t* validity,
                        int64_t null_count) {
  if (null_count != d->null_count) return 0;
  for (int64_t i = 0; i < d->length; ++i) {
    const int valid = (int)((validity[i / 64] >> (i % 64)) & 1);
    if (valid != valid_at(d, i)) return 0;
    if (!valid) continue;
    if (bit) {
      const int64_t di = d->offset + i;
      const int db = (((const uint8_t*)d->buffers[1])[di / 8] >> (di % 8)) & 1;
      if (db != (int)((((const uint64_t*)values)[i / 64] >> (i % 64)) & 1)) return 0;
    } else if (((const int32_t*)values)[i] != i32_at(d, i)) {
      return 0;
    }
  }
  return 1;
}

typedef rowjit_status (*direct_call)(rowjit_engine*, const rowjit_expr*, const rowjit_batch*, struct ArrowArray*,
                                     struct ArrowSchema*, rowjit_error*);
typedef rowjit_status (*prepared_call)(rowjit_prepared*, const rowjit_batch*, struct ArrowArray*, struct ArrowSchema*,
                                       rowjit_error*);

/* One comparison: status, error row and function, or the two results. 1 when they agree. */
static int agree(rowjit_status ds, const rowjit_error* de, struct ArrowArray* d, struct ArrowSchema* dsch,
                 rowjit_status ps, const rowjit_error* pe, struct ArrowArray* p, struct ArrowSchema* psch) {
  int same = ds == ps;
  if (same && ds != ROWJIT_OK) same = de->row == pe->row && strcmp(de->function, pe->function) == 0;
  if (same && ds == ROWJIT_OK) same = same_array(d, dsch, p, psch);
  if (ds == ROWJIT_OK) release_both(d, dsch);
  if (ps == ROWJIT_OK) release_both(p, psch);
  return same;
}

static void test_prepared_against_direct(rowjit_engine* e, const struct ArrowSchema* schema) {
  const char* texts[] = {"a * b + c", "a > b or c < 0", "sum(a * b)", "min_max(a)", "sum(c)"};
  const int kinds[] = {0, 1, 2, 2, 2};  /* evaluate, filter, aggregate */
  enum { kTexts = 5 };
  rowjit_expr* x[kTexts];
  rowjit_prepared* p[kTexts];
  rowjit_prepared* proj = NULL;
  rowjit_error err;
  for (int t = 0; t < kTexts; ++t) {
    CHECK(rowjit_expr_parse(e, texts[t], schema, &x[t], &err) == ROWJIT_OK);
    CHECK(rowjit_prepare(e, x[t], &p[t], &err) == ROWJIT_OK);
  }
  const rowjit_expr* pair[] = {x[0], x[1]};
  CHECK(rowjit_prepare_projection(e, pair, 2, &proj, &err) == ROWJIT_OK);
  const int64_t lengths[] = {1, 7, 63, 64, 65, 127, 128, 129, 300};
  int cases = 0, mismatches = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    rng_state = seed * 0x9E3779B97F4A7C15ull;
    const int64_t n = lengths[next_random() % 9];
    const int a_nulls = (int)(next_random() % 3), wide = next_random() % 2 == 0;
    struct ArrowArray arr;
    struct ArrowSchema sch;
    random_batch(n, a_nulls, wide, &arr, &sch);
    rowjit_batch* b = NULL;
    CHECK(rowjit_batch_import(&arr, &sch, &b, &err) == ROWJIT_OK);
    for (int t = 0; t <= kTexts; ++t) {
      struct ArrowArray d, q;
      struct ArrowSchema dsch, qsch;
      rowjit_error de, pe;
      rowjit_status ds, ps;
      if (t == kTexts) {
        ds = rowjit_project(e, pair, 2, b, &d, &dsch, &de);
        ps = rowjit_prepared_project(proj, b, &q, &qsch, &pe);
      } else {
        const direct_call direct[] = {rowjit_evaluate, rowjit_filter, rowjit_aggregate};
        const prepared_call prepared[] = {rowjit_prepared_evaluate, rowjit_prepared_filter, rowjit_prepared_aggregate};
        ds = direct[kinds[t]](e, x[t], b, &d, &dsch, &de);
        ps = prepared[kinds[t]](p[t], b, &q, &qsch, &pe);
      }
      ++cases;
      if (!agree(ds, &de, &d, &dsch, ps, &pe, &q, &qsch)) {
        ++mismatches;
        fprintf(stderr, "prepared != direct: seed %llu, %s, %lld rows, a_nulls %d, wide %d\n",
                (unsigned long long)seed, t == kTexts ? "projection" : texts[t], (long long)n, a_nulls, wide);
      }
    }
    /* a * b + c into caller memory against the direct result. */
    int32_t* values = (int32_t*)malloc((size_t)n * 4);
    uint64_t* validity = (uint64_t*)malloc((size_t)(n + 63) / 64 * 8);
    const rowjit_output out = {values, n * 4, validity, (n + 63) / 64 * 8};
    struct ArrowArray d;
    struct ArrowSchema dsch;
    rowjit_error de, pe;
    int64_t nulls = -1;
    const rowjit_status ds = rowjit_evaluate(e, x[0], b, &d, &dsch, &de);
    const rowjit_status ps = rowjit_prepared_evaluate_into(p[0], b, &out, &nulls, &pe);
    int same = ds == ps;
    if (same && ds != ROWJIT_OK) same = de.row == pe.row;
    if (same && ds == ROWJIT_OK) same = same_as_lent(&d, 0, values, validity, nulls);
    if (ds == ROWJIT_OK) release_both(&d, &dsch);
    ++cases;
    if (!same) {
      ++mismatches;
      fprintf(stderr, "prepared into != direct: seed %llu, %lld rows, a_nulls %d, wide %d\n",
              (unsigned long long)seed, (long long)n, a_nulls, wide);
    }
    /* The projection into caller memory (an i32 and a bool output) against the direct one. */
    const int64_t words = (n + 63) / 64;
    uint64_t* bits = (uint64_t*)malloc((size_t)words * 8);
    uint64_t* bits_valid = (uint64_t*)malloc((size_t)words * 8);
    const rowjit_output outs[2] = {out, {bits, words * 8, bits_valid, words * 8}};
    int64_t counts[2] = {-1, -1};
    const rowjit_status dps = rowjit_project(e, pair, 2, b, &d, &dsch, &de);
    const rowjit_status pps = rowjit_prepared_project_into(proj, b, outs, 2, counts, &pe);
    same = dps == pps;
    if (same && dps != ROWJIT_OK) same = de.row == pe.row;
    if (same && dps == ROWJIT_OK) {
      same = same_as_lent(d.children[0], 0, values, validity, counts[0]) &&
             same_as_lent(d.children[1], 1, bits, bits_valid, counts[1]);
    }
    if (dps == ROWJIT_OK) release_both(&d, &dsch);
    ++cases;
    if (!same) {
      ++mismatches;
      fprintf(stderr, "projection into != direct: seed %llu, %lld rows, a_nulls %d, wide %d\n",
              (unsigned long long)seed, (long long)n, a_nulls, wide);
    }
    free(bits);
    free(bits_valid);
    free(values);
    free(validity);
    rowjit_batch_free(b);
  }
  CHECK(mismatches == 0 && cases == 60 * (kTexts + 3));
  /* `a` with and without a bitmap (and all null) met: two layouts or more held (sum(c) reads only
   * `c`: one), at most 8 kept. */
  CHECK(rowjit_prepared_layouts(p[4]) == 1);
  for (int t = 0; t < 4; ++t) CHECK(rowjit_prepared_layouts(p[t]) >= 2 && rowjit_prepared_layouts(p[t]) <= 8);
  for (int t = 0; t < kTexts; ++t) {
    rowjit_prepared_free(p[t]);
    rowjit_expr_free(x[t]);
  }
  rowjit_prepared_free(proj);
}

int main(void) {
  test_version_and_engines();
  rowjit_engine* e = new_engine();
  struct ArrowArray arr;
  struct ArrowSchema sch, kept;
  abc_batch(&arr, &sch);
  /* The schema the expressions bind to: a second, identical one the test keeps. */
  struct ArrowArray tmp;
  abc_batch(&tmp, &kept);
  tmp.release(&tmp);
  rowjit_batch* batch = NULL;
  rowjit_error err;
  CHECK(rowjit_batch_import(&arr, &sch, &batch, &err) == ROWJIT_OK && batch != NULL && rowjit_batch_length(batch) == 4);
  CHECK(arr.release == NULL && sch.release == NULL);
  test_parse(e, &kept);
  test_error_spans(e, &kept);
  test_strict_binding(&kept);
  test_evaluate_filter_project_aggregate(e, batch, &kept);
  test_batches(e, &kept);
  test_import_ownership();
  test_strings(e);
  test_logical_types_and_wide_sums(e);
  test_prepared(e, batch, &kept);
  test_prepared_into(e, batch, &kept);
  test_prepared_against_direct(e, &kept);
  rowjit_batch_free(batch);
  rowjit_engine_free(e);
  kept.release(&kept);
  /* Every struct this test made was released exactly once: by rowjit or here. */
  CHECK(array_releases == arrays_made);
  CHECK(schema_releases == schemas_made);
  printf("capi: %d checks, %d failed (arrays %d/%d released, schemas %d/%d)\n", checks, failures, array_releases,
         arrays_made, schema_releases, schemas_made);
  return failures == 0 ? 0 : 1;
}
