/* A C host embedding rowjit through the installed C API (rowjit.h) and librowjit.so: a batch of
 * two int32 columns built by hand as Arrow C structs, `a * b + 1` evaluated over it, and a
 * failing row reported. tools/consumer-test compares the output with the expected lines. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rowjit.h"

static void no_release_array(struct ArrowArray* a) { a->release = NULL; }  /* static storage */
static void no_release_schema(struct ArrowSchema* s) { s->release = NULL; }

int main(void) {
  static int32_t a[] = {1, 2, 3, 1 << 30}, b[] = {10, 20, 30, 1};
  static const void* a_bufs[] = {NULL, a};
  static const void* b_bufs[] = {NULL, b};
  static const void* batch_bufs[] = {NULL};
  struct ArrowArray ca = {4, 0, 0, 2, 0, a_bufs, NULL, NULL, no_release_array, NULL};
  struct ArrowArray cb = {4, 0, 0, 2, 0, b_bufs, NULL, NULL, no_release_array, NULL};
  struct ArrowArray* cols[] = {&ca, &cb};
  struct ArrowArray batch = {4, 0, 0, 1, 2, batch_bufs, cols, NULL, no_release_array, NULL};
  struct ArrowSchema sa = {"i", "a", NULL, 0, 0, NULL, NULL, no_release_schema, NULL};
  struct ArrowSchema sb = {"i", "b", NULL, 0, 0, NULL, NULL, no_release_schema, NULL};
  struct ArrowSchema* fields[] = {&sa, &sb};
  struct ArrowSchema schema = {"+s", "", NULL, 0, 2, fields, NULL, no_release_schema, NULL};

  rowjit_engine* engine;
  rowjit_expr* expr;
  rowjit_expr* failing;
  rowjit_batch* rows;
  rowjit_error err;
  if (rowjit_engine_create(NULL, &engine, &err) != ROWJIT_OK ||
      rowjit_expr_parse(engine, "a * b + 1", &schema, &expr, &err) != ROWJIT_OK ||
      rowjit_expr_parse(engine, "a * b * 4", &schema, &failing, &err) != ROWJIT_OK ||
      rowjit_batch_import(&batch, &schema, &rows, &err) != ROWJIT_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  if (rowjit_evaluate(engine, expr, rows, &out, &out_schema, &err) != ROWJIT_OK) return 1;
  const int32_t* v = (const int32_t*)out.buffers[1];
  printf("c: rowjit %s, %s = [%d, %d, %d, %d]\n", rowjit_version(), rowjit_expr_text(expr), v[0], v[1], v[2], v[3]);
  out.release(&out);
  out_schema.release(&out_schema);
  rowjit_status s = rowjit_evaluate(engine, failing, rows, &out, &out_schema, &err);
  printf("c: status %d, row %lld, function %s\n", (int)s, (long long)err.row, err.function);
  /* The batch loop's handle: prepared once, kept past the engine and the expression. */
  rowjit_prepared* prepared;
  if (rowjit_prepare(engine, expr, &prepared, &err) != ROWJIT_OK) return 1;
  rowjit_expr_free(expr);
  rowjit_expr_free(failing);
  rowjit_engine_free(engine);
  if (rowjit_prepared_evaluate(prepared, rows, &out, &out_schema, &err) != ROWJIT_OK) return 1;
  v = (const int32_t*)out.buffers[1];
  printf("c: prepared = [%d, %d, %d, %d]\n", v[0], v[1], v[2], v[3]);
  out.release(&out);
  out_schema.release(&out_schema);
  rowjit_prepared_free(prepared);
  rowjit_batch_free(rows);
  return 0;
}
