/* A host's batch loop over the C API: engine options, prepared handles that outlive the engine,
 * results written into the host's own memory (rowjit_output), a projection and an aggregate, and
 * the expression again over the host's raw column buffers (rowjit_column). */
#include <stdint.h>
#include <stdio.h>

#include "capi/rowjit.h"

#define ROWS 4

static void no_release_array(struct ArrowArray* x) { x->release = NULL; } /* the host frees nothing */
static void no_release_schema(struct ArrowSchema* s) { s->release = NULL; }

/* The host's columns, refilled for every batch: a (nullable int32, row 1 null) and b (int32). */
static int32_t a[ROWS], b[ROWS];
static uint8_t a_valid[1];
static const void* a_bufs[] = {a_valid, a};
static const void* b_bufs[] = {NULL, b};
static const void* top_bufs[] = {NULL};
static struct ArrowArray ca, cb;
static struct ArrowArray* cols[] = {&ca, &cb};
static struct ArrowSchema sa, sb;
static struct ArrowSchema* fields[] = {&sa, &sb};

/* The batches' schema: a struct ("+s") of a and b. */
static void describe(struct ArrowSchema* schema) {
  struct ArrowSchema fa = {"i", "a", NULL, ARROW_FLAG_NULLABLE, 0, NULL, NULL, no_release_schema, NULL};
  struct ArrowSchema fb = {"i", "b", NULL, 0, 0, NULL, NULL, no_release_schema, NULL};
  struct ArrowSchema top = {"+s", "", NULL, 0, 2, fields, NULL, no_release_schema, NULL};
  sa = fa;
  sb = fb;
  *schema = top;
}

/* One batch: the columns refilled and described as Arrow C structs over the host's memory. */
static void fill(struct ArrowArray* array, struct ArrowSchema* schema, int32_t first) {
  for (int i = 0; i < ROWS; ++i) {
    a[i] = first + i;
    b[i] = 10 * (i + 1);
  }
  a_valid[0] = 0x0d;
  struct ArrowArray c1 = {ROWS, 1, 0, 2, 0, a_bufs, NULL, NULL, no_release_array, NULL};
  struct ArrowArray c2 = {ROWS, 0, 0, 2, 0, b_bufs, NULL, NULL, no_release_array, NULL};
  struct ArrowArray top = {ROWS, 0, 0, 1, 2, top_bufs, cols, NULL, no_release_array, NULL};
  ca = c1;
  cb = c2;
  *array = top;
  describe(schema);
}

static void print_i32(const char* name, const int32_t* v, const uint64_t* valid) {
  printf("%s [", name);
  for (int i = 0; i < ROWS; ++i) {
    if (valid != NULL && !((*valid >> i) & 1)) printf("%snull", i ? ", " : "");
    else printf("%s%d", i ? ", " : "", v[i]);
  }
  printf("]  ");
}

int main(void) {
  rowjit_engine_options options;
  rowjit_engine_options_init(&options);
  options.synchronous = 1; /* every call waits for the optimized kernel (0: tiered, the default) */
  options.cache_dir = NULL; /* no persistent kernel cache */
  rowjit_engine* engine;
  rowjit_expr *expr, *sum, *outputs[2];
  rowjit_prepared *prepared, *fold, *projection;
  rowjit_error err;
  struct ArrowSchema schema;
  describe(&schema);
  if (rowjit_engine_create(&options, &engine, &err) != ROWJIT_OK ||
      rowjit_expr_parse(engine, "a * b + 1", &schema, &expr, &err) != ROWJIT_OK ||
      rowjit_expr_parse(engine, "sum(a * b)", &schema, &sum, &err) != ROWJIT_OK ||
      rowjit_expr_parse(engine, "a * b", &schema, &outputs[0], &err) != ROWJIT_OK ||
      rowjit_expr_parse(engine, "b - 1", &schema, &outputs[1], &err) != ROWJIT_OK ||
      rowjit_prepare(engine, expr, &prepared, &err) != ROWJIT_OK ||
      rowjit_prepare(engine, sum, &fold, &err) != ROWJIT_OK ||
      rowjit_prepare_projection(engine, (const rowjit_expr* const*)outputs, 2, &projection, &err) != ROWJIT_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  /* A handle keeps its engine and expressions alive: they may go first. */
  rowjit_expr_free(expr);
  rowjit_expr_free(sum);
  rowjit_expr_free(outputs[0]);
  rowjit_expr_free(outputs[1]);
  rowjit_engine_free(engine);

  /* Memory the host lends, reused batch after batch: values, and validity in whole 64-bit words. */
  int32_t values[ROWS], products[ROWS], less[ROWS];
  uint64_t validity, products_validity;
  const rowjit_output out = {values, sizeof values, &validity, sizeof validity};
  const rowjit_output outs[2] = {{products, sizeof products, &products_validity, sizeof products_validity},
                                 {less, sizeof less, NULL, 0}}; /* b - 1 has no nulls: validity optional */
  for (int32_t first = 1; first <= 5; first += 4) {
    struct ArrowArray array;
    struct ArrowSchema batch_schema;
    rowjit_batch* batch;
    int64_t nulls, null_counts[2];
    struct ArrowArray total;
    struct ArrowSchema total_schema;
    fill(&array, &batch_schema, first);
    if (rowjit_batch_import(&array, &batch_schema, &batch, &err) != ROWJIT_OK ||
        rowjit_prepared_evaluate_into(prepared, batch, &out, &nulls, &err) != ROWJIT_OK ||
        rowjit_prepared_project_into(projection, batch, outs, 2, null_counts, &err) != ROWJIT_OK ||
        rowjit_prepared_aggregate(fold, batch, &total, &total_schema, &err) != ROWJIT_OK) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    print_i32("a * b + 1", values, &validity);
    print_i32("a * b", products, &products_validity);
    print_i32("b - 1", less, NULL);
    printf("nulls %lld %lld %lld  sum %lld\n", (long long)nulls, (long long)null_counts[0],
           (long long)null_counts[1], (long long)((const int64_t*)total.buffers[1])[0]);
    total.release(&total);
    total_schema.release(&total_schema);
    rowjit_batch_free(batch); /* then the host may refill its columns */
    /* The same expression over the host's own buffers: no batch to import. Validity comes in
     * whole 64-bit words; a column without nulls passes NULL. */
    const uint64_t a_words[1] = {a_valid[0]};
    const rowjit_column raw[2] = {{a, a_words}, {b, NULL}};
    if (rowjit_prepared_evaluate_buffers(prepared, raw, 2, ROWS, &out, &nulls, &err) != ROWJIT_OK) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    print_i32("from buffers", values, &validity);
    printf("nulls %lld\n", (long long)nulls);
  }
  rowjit_prepared_free(prepared);
  rowjit_prepared_free(fold);
  rowjit_prepared_free(projection);
  return 0;
}
