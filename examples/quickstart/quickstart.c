/* The C quick start: a record batch built as Arrow C Data Interface structs by a minimal
 * builder (heap buffers, release callbacks that free them), handed to rowjit, and the result
 * read back as an Arrow array. Any Arrow producer (arrow-glib, nanoarrow, a database driver)
 * could hand over the same structs instead. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowjit.h> /* in include/rowjit/ of the install prefix: pkg-config --cflags rowjit-c */

/* --- a minimal builder: int64 columns, NULL-able, each owning its buffers -------------------- */
static void release_column(struct ArrowArray* a) {
  for (int64_t i = 0; i < a->n_buffers; ++i) free((void*)a->buffers[i]);
  free(a->buffers);
  a->release = NULL;
}
static void release_batch(struct ArrowArray* a) {
  for (int64_t i = 0; i < a->n_children; ++i) {
    if (a->children[i]->release) a->children[i]->release(a->children[i]);
    free(a->children[i]);
  }
  free(a->children);
  free(a->buffers);
  a->release = NULL;
}
static void release_field(struct ArrowSchema* s) { s->release = NULL; } /* static strings */
static void release_struct(struct ArrowSchema* s) {
  for (int64_t i = 0; i < s->n_children; ++i) free(s->children[i]);
  free(s->children);
  s->release = NULL;
}
/* One int64 column of n rows; valid[i] == 0 makes row i null (valid NULL: no nulls). */
static struct ArrowArray* int64_column(const int64_t* values, const uint8_t* valid, int64_t n) {
  struct ArrowArray* a = calloc(1, sizeof *a);
  uint8_t* bits = calloc((size_t)(n + 7) / 8, 1);
  int64_t* data = malloc((size_t)n * sizeof *data);
  const void** buffers = malloc(2 * sizeof *buffers);
  memcpy(data, values, (size_t)n * sizeof *data);
  for (int64_t i = 0; i < n; ++i) {
    if (valid == NULL || valid[i]) bits[i / 8] |= (uint8_t)(1u << (i % 8));
    else a->null_count++;
  }
  buffers[0] = bits;
  buffers[1] = data;
  a->length = n;
  a->n_buffers = 2;
  a->buffers = buffers;
  a->release = release_column;
  return a;
}
/* A batch (a struct array and its "+s" schema) of int64 columns named by names[]. */
static void make_batch(struct ArrowArray** columns, const char** names, int n_columns, int64_t rows,
                       struct ArrowArray* batch, struct ArrowSchema* schema) {
  memset(batch, 0, sizeof *batch);
  memset(schema, 0, sizeof *schema);
  batch->length = rows;
  batch->n_buffers = 1;
  batch->buffers = calloc(1, sizeof(void*));
  batch->n_children = n_columns;
  batch->children = columns;
  batch->release = release_batch;
  schema->format = "+s";
  schema->name = "";
  schema->n_children = n_columns;
  schema->children = calloc((size_t)n_columns, sizeof(struct ArrowSchema*));
  for (int i = 0; i < n_columns; ++i) {
    struct ArrowSchema* f = calloc(1, sizeof *f);
    f->format = "l"; /* int64 */
    f->name = names[i];
    f->flags = ARROW_FLAG_NULLABLE;
    f->release = release_field;
    schema->children[i] = f;
  }
  schema->release = release_struct;
}

int main(void) {
  const int64_t qty[] = {3, 0, 10, 7}, price[] = {250, 400, 50, 125};
  const uint8_t qty_valid[] = {1, 0, 1, 1}; /* row 1: null */
  struct ArrowArray** columns = malloc(2 * sizeof *columns);
  columns[0] = int64_column(qty, qty_valid, 4);
  columns[1] = int64_column(price, NULL, 4);
  const char* names[] = {"qty", "price"};
  struct ArrowArray array;
  struct ArrowSchema schema;
  make_batch(columns, names, 2, 4, &array, &schema);

  rowjit_engine* engine;
  rowjit_expr* cost;
  rowjit_batch* batch;
  rowjit_error err;
  if (rowjit_engine_create(NULL, &engine, &err) != ROWJIT_OK ||
      rowjit_expr_parse(engine, "qty * price", &schema, &cost, &err) != ROWJIT_OK || /* schema borrowed */
      rowjit_batch_import(&array, &schema, &batch, &err) != ROWJIT_OK) {            /* both moved in */
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  if (rowjit_evaluate(engine, cost, batch, &out, &out_schema, &err) != ROWJIT_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  const uint8_t* valid = out.buffers[0]; /* NULL when no row is null */
  const int64_t* values = out.buffers[1];
  printf("%s (format %s):", rowjit_expr_text(cost), out_schema.format);
  for (int64_t i = 0; i < out.length; ++i) {
    if (valid != NULL && !((valid[i / 8] >> (i % 8)) & 1)) printf(" null");
    else printf(" %lld", (long long)values[i]);
  }
  printf("\n");
  out.release(&out); /* the caller owns the result */
  out_schema.release(&out_schema);
  rowjit_batch_free(batch);
  rowjit_expr_free(cost);
  rowjit_engine_free(engine);
  return 0;
}
