/* An aggregate query from C: sums, an average and a filtered count per group, over a batch
 * (rowjit_query_run) and over batches folded into partial states, one sent as bytes and merged. */
#include <stdint.h>
#include <stdio.h>

#include "capi/rowjit.h"

#define ROWS 4

static void no_release_array(struct ArrowArray* x) { x->release = NULL; } /* the host frees nothing */
static void no_release_schema(struct ArrowSchema* s) { s->release = NULL; }

/* The host's columns: shop (int32), units (nullable int32), price (double); two batches. */
static const int32_t kShop[2][ROWS] = {{1, 2, 1, 2}, {2, 1, 3, 1}};
static const int32_t kUnits[2][ROWS] = {{3, 1, 0, 5}, {2, 4, 1, 3}};
static const uint8_t kUnitsValid[2] = {0x0b, 0x0f}; /* batch 0, row 2: null */
static const double kPrice[2][ROWS] = {{2.5, 4.0, 1.0, -1.0}, {3.0, 2.0, 6.0, 0.5}};
static const void* bufs[3][2];
static const void* top_bufs[] = {NULL};
static struct ArrowArray cols[3];
static struct ArrowArray* col_ptrs[] = {&cols[0], &cols[1], &cols[2]};
static struct ArrowSchema fields[3];
static struct ArrowSchema* field_ptrs[] = {&fields[0], &fields[1], &fields[2]};

/* The batches' schema: a struct ("+s") of shop, units and price. */
static void describe(struct ArrowSchema* schema) {
  const char* formats[3] = {"i", "i", "g"};
  const char* names[3] = {"shop", "units", "price"};
  for (int c = 0; c < 3; ++c) {
    struct ArrowSchema f = {formats[c], names[c], NULL, c == 1 ? ARROW_FLAG_NULLABLE : 0, 0, NULL, NULL,
                            no_release_schema, NULL};
    fields[c] = f;
  }
  struct ArrowSchema top = {"+s", "", NULL, 0, 3, field_ptrs, NULL, no_release_schema, NULL};
  *schema = top;
}

/* Batch b as Arrow C structs over the host's memory. */
static void batch_of(int b, struct ArrowArray* array, struct ArrowSchema* schema) {
  const void* values[3] = {kShop[b], kUnits[b], kPrice[b]};
  for (int c = 0; c < 3; ++c) {
    bufs[c][0] = c == 1 ? &kUnitsValid[b] : NULL;
    bufs[c][1] = values[c];
    struct ArrowArray a = {ROWS, c == 1 && b == 0, 0, 2, 0, bufs[c], NULL, NULL, no_release_array, NULL};
    cols[c] = a;
  }
  struct ArrowArray top = {ROWS, 0, 0, 1, 3, top_bufs, col_ptrs, NULL, no_release_array, NULL};
  *array = top;
  describe(schema);
}

/* The answer: a struct array, one row per group, the keys' columns then the aggregates'. */
static void print_answer(const rowjit_query* query, const struct ArrowArray* out) {
  for (size_t c = 0; c < rowjit_query_columns(query); ++c) printf("%s%s", c ? " | " : "", rowjit_query_column_name(query, c));
  printf("\n");
  for (int64_t r = 0; r < out->length; ++r) {
    printf("%d | %lld | %g | %lld\n", ((const int32_t*)out->children[0]->buffers[1])[r],
           (long long)((const int64_t*)out->children[1]->buffers[1])[r],
           ((const double*)out->children[2]->buffers[1])[r],
           (long long)((const int64_t*)out->children[3]->buffers[1])[r]);
  }
}

static int fold_batch(rowjit_engine* engine, rowjit_query_state* state, int b, rowjit_error* err) {
  struct ArrowArray array;
  struct ArrowSchema schema;
  rowjit_batch* batch;
  batch_of(b, &array, &schema);
  if (rowjit_batch_import(&array, &schema, &batch, err) != ROWJIT_OK) return 0;
  const rowjit_status s = rowjit_query_state_fold(engine, state, batch, NULL, err); /* NULL: every row */
  rowjit_batch_free(batch);
  return s == ROWJIT_OK;
}

int main(void) {
  rowjit_engine* engine;
  rowjit_query* query;
  rowjit_error err;
  struct ArrowSchema schema;
  describe(&schema);
  if (rowjit_engine_create(NULL, &engine, &err) != ROWJIT_OK ||
      rowjit_query_parse(engine,
                         "sum(units), avg(price), count(*) filter (where units > 2) group by shop where price > 0",
                         &schema, &query, &err) != ROWJIT_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  /* One state per thread (here: per batch), merged after; a state travels as bytes. */
  rowjit_query_state *mine, *theirs, *received;
  uint8_t* bytes;
  size_t length;
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  if (rowjit_query_state_new(query, &mine, &err) != ROWJIT_OK ||
      rowjit_query_state_new(query, &theirs, &err) != ROWJIT_OK ||
      !fold_batch(engine, mine, 0, &err) || !fold_batch(engine, theirs, 1, &err) ||
      rowjit_query_state_serialize(theirs, &bytes, &length, &err) != ROWJIT_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  const rowjit_status received_ok = rowjit_query_state_deserialize(query, bytes, length, &received, &err);
  rowjit_bytes_free(bytes);
  if (received_ok != ROWJIT_OK || rowjit_query_state_merge(mine, received, &err) != ROWJIT_OK ||
      rowjit_query_state_finish(mine, &out, &out_schema, &err) != ROWJIT_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  print_answer(query, &out);
  out.release(&out); /* the caller owns the answer: each struct released once */
  out_schema.release(&out_schema);
  rowjit_query_state_free(mine);
  rowjit_query_state_free(theirs);
  rowjit_query_state_free(received);

  /* The same query over one batch in one call; an error in its text points at its span. */
  struct ArrowArray array;
  struct ArrowSchema batch_schema;
  rowjit_batch* batch;
  rowjit_query* bad;
  batch_of(1, &array, &batch_schema);
  if (rowjit_batch_import(&array, &batch_schema, &batch, &err) != ROWJIT_OK ||
      rowjit_query_run(engine, query, batch, NULL, &out, &out_schema, &err) != ROWJIT_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  print_answer(query, &out);
  out.release(&out);
  out_schema.release(&out_schema);
  if (rowjit_query_parse(engine, "sum(units) group by store", &schema, &bad, &err) != ROWJIT_OK) {
    printf("status %d, span %lld+%lld:\n%s\n", err.code, (long long)err.span_offset, (long long)err.span_length,
           err.message);
  }
  rowjit_batch_free(batch);
  rowjit_query_free(query);
  rowjit_engine_free(engine);
  return 0;
}
