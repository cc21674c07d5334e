/* The C API: a record batch built by hand as Arrow C structs, then an expression evaluated, a
 * filter, an aggregate and a failing row, each result an Arrow array the host releases. */
#include <stdint.h>
#include <stdio.h>

#include "capi/rowjit.h" /* installed as <rowjit/rowjit.h>: cc host.c $(pkg-config --cflags --libs rowjit) */

static void no_release_array(struct ArrowArray* a) { a->release = NULL; } /* static storage */
static void no_release_schema(struct ArrowSchema* s) { s->release = NULL; }

/* Prints an int32 result, reading its validity bitmap (buffer 0, NULL when no row is null). */
static void print_i32(const struct ArrowArray* out) {
  const uint8_t* valid = (const uint8_t*)out->buffers[0];
  const int32_t* v = (const int32_t*)out->buffers[1];
  for (int64_t i = 0; i < out->length; ++i) {
    if (valid != NULL && !((valid[i / 8] >> (i % 8)) & 1)) printf("%snull", i ? ", " : "[");
    else printf("%s%d", i ? ", " : "[", v[i]);
  }
  printf("]\n");
}

int main(void) {
  /* Two int32 columns: a (nullable, row 1 null) and b, as any Arrow producer hands them over. */
  static int32_t a[] = {1, 0, 3, 1 << 30}, b[] = {10, 20, 30, 1};
  static uint8_t a_valid[] = {0x0d}; /* LSB first: rows 0, 2 and 3 */
  static const void* a_bufs[] = {a_valid, a};
  static const void* b_bufs[] = {NULL, b};
  static const void* batch_bufs[] = {NULL};
  struct ArrowArray ca = {4, 1, 0, 2, 0, a_bufs, NULL, NULL, no_release_array, NULL};
  struct ArrowArray cb = {4, 0, 0, 2, 0, b_bufs, NULL, NULL, no_release_array, NULL};
  struct ArrowArray* cols[] = {&ca, &cb};
  struct ArrowArray array = {4, 0, 0, 1, 2, batch_bufs, cols, NULL, no_release_array, NULL};
  struct ArrowSchema sa = {"i", "a", NULL, ARROW_FLAG_NULLABLE, 0, NULL, NULL, no_release_schema, NULL};
  struct ArrowSchema sb = {"i", "b", NULL, 0, 0, NULL, NULL, no_release_schema, NULL};
  struct ArrowSchema* fields[] = {&sa, &sb};
  struct ArrowSchema schema = {"+s", "", NULL, 0, 2, fields, NULL, no_release_schema, NULL};

  rowjit_engine* engine;
  rowjit_expr *expr, *pred, *sum, *failing;
  rowjit_batch* batch;
  rowjit_error err;
  if (rowjit_engine_create(NULL, &engine, &err) != ROWJIT_OK ||
      rowjit_expr_parse(engine, "a * b + 1", &schema, &expr, &err) != ROWJIT_OK ||     /* schema borrowed */
      rowjit_expr_parse(engine, "a * b > 50", &schema, &pred, &err) != ROWJIT_OK ||
      rowjit_expr_parse(engine, "sum(a * b)", &schema, &sum, &err) != ROWJIT_OK ||
      rowjit_expr_parse(engine, "a * b * 4", &schema, &failing, &err) != ROWJIT_OK ||
      rowjit_batch_import(&array, &schema, &batch, &err) != ROWJIT_OK) {              /* both moved */
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  printf("%s: format %s, nullable %d\n", rowjit_expr_text(expr), rowjit_expr_format(expr), rowjit_expr_nullable(expr));

  struct ArrowArray out;
  struct ArrowSchema out_schema;
  if (rowjit_evaluate(engine, expr, batch, &out, &out_schema, &err) != ROWJIT_OK) return 1;
  print_i32(&out);
  out.release(&out); /* the caller owns the result: each struct released once */
  out_schema.release(&out_schema);

  if (rowjit_filter(engine, pred, batch, &out, &out_schema, &err) != ROWJIT_OK) return 1;
  const uint32_t* rows = (const uint32_t*)out.buffers[1]; /* format "I": row indices */
  printf("filter %s: rows", rowjit_expr_text(pred));
  for (int64_t i = 0; i < out.length; ++i) printf(" %u", rows[i]);
  printf("\n");
  out.release(&out);
  out_schema.release(&out_schema);

  if (rowjit_aggregate(engine, sum, batch, &out, &out_schema, &err) != ROWJIT_OK) return 1;
  printf("%s = %lld (format %s)\n", rowjit_expr_text(sum), (long long)((const int64_t*)out.buffers[1])[0],
         out_schema.format);
  out.release(&out);
  out_schema.release(&out_schema);

  rowjit_status status = rowjit_evaluate(engine, failing, batch, &out, &out_schema, &err);
  if (status != ROWJIT_OK) printf("status %d, row %lld, function %s: %s\n", (int)status, (long long)err.row,
                                  err.function, err.message);

  rowjit_batch_free(batch);
  rowjit_expr_free(expr);
  rowjit_expr_free(pred);
  rowjit_expr_free(sum);
  rowjit_expr_free(failing);
  rowjit_engine_free(engine);
  return 0;
}
