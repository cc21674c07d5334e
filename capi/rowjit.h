/* rowjit's C API (C99): JIT-compiled row expressions over Arrow record batches, for hosts written
 * in C, Rust, Go, Java or Python. Opaque handles, no exceptions, no C++ types; data crosses the
 * boundary through the Arrow C Data Interface.
 *
 *   rowjit_engine* engine;  rowjit_expr* expr;  rowjit_batch* batch;  rowjit_error err;
 *   rowjit_engine_create(NULL, &engine, &err);
 *   rowjit_expr_parse(engine, "a * b + c", &schema, &expr, &err);    // schema: a struct ("+s")
 *   rowjit_batch_import(&array, &schema_copy, &batch, &err);           // takes ownership of both
 *   struct ArrowArray out; struct ArrowSchema out_schema;
 *   if (rowjit_evaluate(engine, expr, batch, &out, &out_schema, &err) != ROWJIT_OK)
 *     fprintf(stderr, "%s\n", err.message);                             // names the function and row
 *   out.release(&out); out_schema.release(&out_schema);
 *   rowjit_batch_free(batch); rowjit_expr_free(expr); rowjit_engine_free(engine);
 *
 * Errors: every fallible call returns a rowjit_status and, when `error` is not NULL, fills it (the
 * message, for an error in a row its function and row, for an error in an expression's text its
 * span). Result arrays are written only on success; a handle out-parameter (engine, expression,
 * batch, prepared) is set to NULL on failure.
 * Results are ArrowArray/ArrowSchema pairs the caller owns and releases once each.
 * Thread safety: an engine and the expressions, queries and batches it uses may be shared by any
 * number of threads calling rowjit_evaluate / _filter / _project / _aggregate / rowjit_query_run
 * at once; creating and parsing are thread-safe too. Freeing a handle while another thread uses it
 * is not. A query's partial state (rowjit_query_state) is the exception: one thread at a time.
 * A host's batch loop prepares once (rowjit_prepare) and calls rowjit_prepared_evaluate per batch:
 * see "Prepared handles" below. Grouped and multi-aggregate folds: "Aggregate queries" below. */
#ifndef ROWJIT_H
#define ROWJIT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/arrow_c_abi.h"  /* struct ArrowSchema, struct ArrowArray */

#ifdef __cplusplus
extern "C" {
#endif


/* What went wrong (rowjit's error codes). */
typedef enum rowjit_status {
  ROWJIT_OK = 0,
  ROWJIT_INVALID_INPUT = 1,     /* a bad argument, batch, schema or expression text */
  ROWJIT_TYPE_ERROR = 2,        /* types that do not fit (a column, a function's arguments) */
  ROWJIT_OVERFLOW = 3,          /* a checked operation overflowed in a row */
  ROWJIT_DIVISION_BY_ZERO = 4,  /* in a row */
  ROWJIT_UNSUPPORTED = 5,       /* a format or feature rowjit does not handle */
  ROWJIT_OUT_OF_MEMORY = 6,     /* an allocation failed, or would pass a configured limit */
  ROWJIT_IO_ERROR = 7,          /* the disk cache folder could not be used */
  ROWJIT_INTERNAL = 8
} rowjit_status;

/* An error's details. Filled by a failing call when the caller passes one; no allocation, nothing
 * to free (long messages are cut to fit, at a UTF-8 character's boundary, always terminated).
 * An error rowjit_expr_parse finds in the expression text carries the span of the text it is
 * about (an unknown column: its name; an unknown function: the function's name; a syntax error:
 * where it stopped, a zero length at the end of the text): span_offset and span_length are bytes
 * of that text, and the message shows the span's line under it with a caret and tildes when the
 * whole rendering fits (else the first line alone):
 *   invalid input: unknown function 'sqroot' (did you mean 'sqrt'?)
 *     a + sqroot(b)
 *         ^~~~~~
 * Every other error has span_offset and span_length -1. */
typedef struct rowjit_error {
  rowjit_status code;
  int64_t row;          /* the first failing row of the batch, or -1 when the error is not a row's */
  char function[64];    /* the failing function for a row error ("mul"), else "" */
  char message[512];    /* "overflow: mul at row 3: mul result does not fit i32" */
  int64_t span_offset;  /* the error's place in the expression text (bytes from its start), or -1 */
  int64_t span_length;  /* its length in bytes (0: a point, such as the end of the text), or -1 */
} rowjit_error;

typedef struct rowjit_engine rowjit_engine;  /* a JIT, its kernel caches and compile threads */
typedef struct rowjit_expr rowjit_expr;      /* an expression or aggregate bound to a schema */
typedef struct rowjit_batch rowjit_batch;    /* an imported record batch */

/* Engine options. Initialize with rowjit_engine_options_init, then set what differs. */
typedef struct rowjit_engine_options {
  int64_t cache_capacity;         /* compiled kernels kept in memory (default 1024) */
  int64_t retained_output_bytes;  /* freed large outputs kept for reuse (default 256 MiB; 0: none) */
  const char* cache_dir;          /* persistent kernel cache folder (NULL: none); copied */
  int64_t disk_cache_bytes;       /* that folder's bound (default 256 MiB) */
  int32_t compile_threads;        /* background compile threads (default 1) */
  int32_t synchronous;            /* 1: every call waits for the optimized kernel; 0: tiered */
  int32_t implicit_casts;         /* 1 (default): SQL's implicit numeric casts when binding (i32 + f64 is
                                     f64 arithmetic); 0: strict, where a call's value arguments must share
                                     one type and a mix is ROWJIT_TYPE_ERROR (write the cast) */
} rowjit_engine_options;

/* "0.1.0". Thread-safe. */
const char* rowjit_version(void);
/* The defaults. */
void rowjit_engine_options_init(rowjit_engine_options* options);

/* A new engine (`options` NULL: the defaults). */
rowjit_status rowjit_engine_create(const rowjit_engine_options* options, rowjit_engine** out, rowjit_error* error);
/* Frees an engine (NULL is a no-op). Expressions and batches stay valid; results never refer to it;
 * prepared handles keep the engine's kernels until they are freed too. Not while another thread
 * uses the engine. */
void rowjit_engine_free(rowjit_engine* engine);

/* Parses `text` (an expression such as "a * b + c", or an aggregate such as "sum(a * b)") and binds
 * it to `schema`, a struct schema ("+s") whose children name the columns (borrowed: not released).
 * The engine's limits and implicit_casts apply. An error in the text fills the error's span and
 * shows it in the message (see rowjit_error). Text that does not bind and reads as an aggregate
 * query (GROUP BY, WHERE, FILTER, avg, count(*), several aggregates) is ROWJIT_INVALID_INPUT
 * naming rowjit_query_parse, which parses those. */
rowjit_status rowjit_expr_parse(rowjit_engine* engine, const char* text, const struct ArrowSchema* schema,
                                rowjit_expr** out, rowjit_error* error);
/* Whether the expression is an aggregate (1) or a row expression (0). */
int rowjit_expr_is_aggregate(const rowjit_expr* expr);
/* The canonical text of a bound expression; valid while `expr` lives. */
const char* rowjit_expr_text(const rowjit_expr* expr);
/* The result's Arrow format string ("i", "g", "b", "u", "d:38,2", "tsu:UTC", ...; an aggregate's
 * value type) and whether it may hold nulls (1) or not (0); valid while `expr` lives. */
const char* rowjit_expr_format(const rowjit_expr* expr);
int rowjit_expr_nullable(const rowjit_expr* expr);
void rowjit_expr_free(rowjit_expr* expr);

/* Imports a record batch (a struct array "+s" and its schema). Ownership of each struct passed
 * moves to rowjit on success and on error alike, whatever the error (the other struct or `out`
 * NULL, a batch refused): on return its `release` is NULL, and rowjit calls it exactly once. The
 * schema is released before the call returns; so is the array on error, and on success when the
 * batch and every result referring to its buffers (used in place) are gone. A struct already
 * released (`release` NULL) is an error and is not released again. What the C Data Interface
 * lets rowjit check is checked (lengths, offsets, string offsets and views, null counts,
 * dictionary codes); what it cannot carry is trusted: that each buffer holds the rows the array
 * claims. */
rowjit_status rowjit_batch_import(struct ArrowArray* array, struct ArrowSchema* schema, rowjit_batch** out,
                                  rowjit_error* error);
int64_t rowjit_batch_length(const rowjit_batch* batch);
void rowjit_batch_free(rowjit_batch* batch);

/* Evaluates a row expression over a batch: one array of the batch's length. */
rowjit_status rowjit_evaluate(rowjit_engine* engine, const rowjit_expr* expr, const rowjit_batch* batch,
                              struct ArrowArray* out, struct ArrowSchema* out_schema, rowjit_error* error);
/* The rows where a bool expression is true (null counts as false): ascending row indices as a
 * uint32 array ("I"). */
rowjit_status rowjit_filter(rowjit_engine* engine, const rowjit_expr* predicate, const rowjit_batch* batch,
                            struct ArrowArray* out, struct ArrowSchema* out_schema, rowjit_error* error);
/* Several row expressions in one pass: a struct array ("+s") with one child per expression, named
 * "0", "1", ...; an error names its expression and row. */
rowjit_status rowjit_project(rowjit_engine* engine, const rowjit_expr* const* exprs, size_t n_exprs,
                             const rowjit_batch* batch, struct ArrowArray* out, struct ArrowSchema* out_schema,
                             rowjit_error* error);
/* An aggregate over a batch: an array of one row (two for min_max: min, then max). */
rowjit_status rowjit_aggregate(rowjit_engine* engine, const rowjit_expr* aggregate, const rowjit_batch* batch,
                               struct ArrowArray* out, struct ArrowSchema* out_schema, rowjit_error* error);

/* --- Prepared handles: the batch loop a host writes ----------------------------------------- */

/* An expression, aggregate or projection prepared for running batch after batch. Each batch layout
 * it meets (per column read: type, encoding, whether it holds nulls) is planned once and its kernel
 * held, so that a call on a known layout checks its inputs and runs the kernel: no parsing, no
 * planning, no kernel cache lookup. Results and errors are those of rowjit_evaluate / _filter /
 * _project / _aggregate with the same expressions, call for call. A handle keeps what it uses
 * alive: the engine and the expressions may be freed before it (the engine's kernels and compile
 * threads go when the engine and every handle made from it are freed). Any number of threads may
 * call one handle at once; freeing it while another thread uses it is not allowed. */
typedef struct rowjit_prepared rowjit_prepared;

/* Prepares one row expression (for rowjit_prepared_evaluate and, when it is bool,
 * rowjit_prepared_filter) or one aggregate (for rowjit_prepared_aggregate). */
rowjit_status rowjit_prepare(rowjit_engine* engine, const rowjit_expr* expr, rowjit_prepared** out,
                             rowjit_error* error);
/* Prepares a projection of row expressions (for rowjit_prepared_project): their common
 * subexpressions are computed once a batch, as rowjit_project's. */
rowjit_status rowjit_prepare_projection(rowjit_engine* engine, const rowjit_expr* const* exprs, size_t n_exprs,
                                        rowjit_prepared** out, rowjit_error* error);
/* Calls on a prepared handle; a call that does not fit what was prepared (evaluate on an
 * aggregate, project on one expression, ...) is ROWJIT_INVALID_INPUT. */
rowjit_status rowjit_prepared_evaluate(rowjit_prepared* prepared, const rowjit_batch* batch, struct ArrowArray* out,
                                       struct ArrowSchema* out_schema, rowjit_error* error);
rowjit_status rowjit_prepared_filter(rowjit_prepared* prepared, const rowjit_batch* batch, struct ArrowArray* out,
                                     struct ArrowSchema* out_schema, rowjit_error* error);
rowjit_status rowjit_prepared_project(rowjit_prepared* prepared, const rowjit_batch* batch, struct ArrowArray* out,
                                      struct ArrowSchema* out_schema, rowjit_error* error);
rowjit_status rowjit_prepared_aggregate(rowjit_prepared* prepared, const rowjit_batch* batch, struct ArrowArray* out,
                                        struct ArrowSchema* out_schema, rowjit_error* error);
/* Memory the caller lends for one result, in Arrow's flat layout at offset 0:
 *   values:   length * width bytes, aligned to the width; a bool result: bits, LSB first, in whole
 *             64-bit words (ceil(length / 64) * 8 bytes, 8-byte aligned)
 *   validity: ceil(length / 64) * 8 bytes, 8-byte aligned, a set bit a valid row; required when the
 *             result may hold nulls (rowjit_expr_nullable), else optional (then written all valid)
 * Bits past the last row, up to the end of its word, are written as zeros. The buffers must not
 * overlap each other or the batch's (checked: a clear error). On error their contents are
 * unspecified. */
typedef struct rowjit_output {
  void* values;
  int64_t values_bytes;    /* capacity */
  void* validity;
  int64_t validity_bytes;  /* capacity */
} rowjit_output;
/* Evaluates a prepared row expression into `out`: no result memory allocated, nothing exported or
 * to release. `null_count` (may be NULL) receives the result's null rows. String results have no
 * fixed-width layout: ROWJIT_INVALID_INPUT (rowjit_prepared_evaluate returns them). */
rowjit_status rowjit_prepared_evaluate_into(rowjit_prepared* prepared, const rowjit_batch* batch,
                                            const rowjit_output* out, int64_t* null_count, rowjit_error* error);
/* One input column as raw buffers, in the layout of the type it was parsed with, from row 0:
 *   values:   length * width bytes (a bool column: bits, LSB first, in whole 64-bit words);
 *             aligned to the width for the fast call (unaligned values are copied first)
 *   validity: ceil(length / 64) 64-bit words, a set bit a valid row; NULL when every row is valid
 *             (only a nullable column may have one)
 * A vector column (fixed_size_list<T, N>): values are length * N elements of T, each row's N in
 * order (aligned to T's width, else copied first). String, struct, list and map columns have no
 * raw form. Read, never written, and only during the call. */
typedef struct rowjit_column {
  const void* values;
  const uint64_t* validity;
} rowjit_column;
/* rowjit_prepared_evaluate_into over raw column buffers instead of an imported batch: `columns`
 * holds one entry per column of the schema the expression was parsed with, in its order, at least
 * up to the last column the expression reads (entries for columns it does not read are ignored,
 * and may be zero). Nothing is imported or allocated per call; on a layout the handle holds, a
 * call checks only the pointers, their alignment, the nulls and the output. String columns have
 * no raw form (ROWJIT_INVALID_INPUT: import a batch). */
rowjit_status rowjit_prepared_evaluate_buffers(rowjit_prepared* prepared, const rowjit_column* columns,
                                               size_t n_columns, int64_t length, const rowjit_output* out,
                                               int64_t* null_count, rowjit_error* error);
/* Projects a prepared projection into `outs`, one rowjit_output per expression in order (n_outs
 * must be their number; the buffers of different outputs must not overlap either). `null_counts`
 * (may be NULL) receives each output's null rows. An output that gives strings is
 * ROWJIT_INVALID_INPUT (rowjit_prepared_project returns them). */
rowjit_status rowjit_prepared_project_into(rowjit_prepared* prepared, const rowjit_batch* batch,
                                           const rowjit_output* outs, size_t n_outs, int64_t* null_counts,
                                           rowjit_error* error);
/* The number of batch layouts the handle holds a kernel for (0 for NULL). */
size_t rowjit_prepared_layouts(const rowjit_prepared* prepared);
void rowjit_prepared_free(rowjit_prepared* prepared);

/* --- Aggregate queries: several aggregates, per group, in one pass ------------------------------ */

/* An aggregate query bound to a schema (the form and its semantics: docs/semantics.md, "Aggregate
 * queries"):
 *   sum(x), avg(y), count(*) filter (where y > 0) group by g where p
 * Its answer has one row per group that has a row WHERE keeps, in ascending key order (nulls
 * last); without GROUP BY, one row even over no rows (sums null, counts 0). Its columns: the GROUP
 * BY columns (named as they are), then one per aggregate (named by its text as written, FILTER
 * included), each nullable.
 * Thread safety: a query is immutable: any number of threads may run it and make states of it at
 * once. A state (rowjit_query_state) is not thread-safe: one state per thread, merged after.
 * Lifetimes: a state keeps its query alive (the query may be freed first); neither refers to the
 * engine or to any batch after a call returns. */
typedef struct rowjit_query rowjit_query;
typedef struct rowjit_query_state rowjit_query_state;

/* Rows of a batch to run over: ascending row indices, no repeats, each below the batch's length
 * (rowjit_filter's result holds such rows). `rows` may be NULL only when `length` is 0 (no row). */
typedef struct rowjit_selection {
  const uint32_t* rows;
  int64_t length;
} rowjit_selection;

/* Parses `text` (an aggregate query; a single plain aggregate such as "sum(x)" is one too) and binds
 * it to `schema`, as rowjit_expr_parse does: a struct schema ("+s"), borrowed; the engine's limits
 * and implicit_casts apply; an error in the text fills the error's span and shows it in the
 * message. `*out` is NULL on failure. */
rowjit_status rowjit_query_parse(rowjit_engine* engine, const char* text, const struct ArrowSchema* schema,
                                 rowjit_query** out, rowjit_error* error);
/* The canonical text; valid while `query` lives ("" for NULL). */
const char* rowjit_query_text(const rowjit_query* query);
/* The result's columns: the GROUP BY columns first (rowjit_query_keys of them), then the aggregates
 * (0 for NULL). */
size_t rowjit_query_columns(const rowjit_query* query);
size_t rowjit_query_keys(const rowjit_query* query);
/* Column i's name and Arrow format string; valid while `query` lives; NULL when i is out of range
 * or `query` NULL. */
const char* rowjit_query_column_name(const rowjit_query* query, size_t i);
const char* rowjit_query_column_format(const rowjit_query* query, size_t i);
void rowjit_query_free(rowjit_query* query);

/* Runs `query` over a batch (`selection` NULL: every row; else only its rows, a float sum's lanes
 * then following their position in the selection). The answer is a struct array ("+s") of one
 * row per group, its children the query's columns in order, named as rowjit_query_column_name.
 * The batch must fit the schema the query was bound to: each column the query reads must be
 * there, at its index, with its name and type (else ROWJIT_INVALID_INPUT or ROWJIT_TYPE_ERROR,
 * naming the column). An error in a row (a checked sum that overflows, an argument's division by
 * zero) names its expression and the batch's row. */
rowjit_status rowjit_query_run(rowjit_engine* engine, const rowjit_query* query, const rowjit_batch* batch,
                               const rowjit_selection* selection, struct ArrowArray* out,
                               struct ArrowSchema* out_schema, rowjit_error* error);

/* Partial states: what a query has folded so far, per group. A host folds batches (on threads:
 * one state each), merges states, sends them as bytes (to another process or machine running the
 * same query text over the same schema), and finishes one into the answer. Integer, decimal,
 * count, min and max answers equal rowjit_query_run's over the same rows exactly, whatever the
 * split; float sums add lane by lane when merged. A state's size grows with its groups (one per
 * distinct key met, no bound but memory); its bytes too. */

/* An empty state of `query`. `*out` is NULL on failure. */
rowjit_status rowjit_query_state_new(const rowjit_query* query, rowjit_query_state** out, rowjit_error* error);
/* Folds a batch (`selection` NULL: every row) into `state`, with rowjit_query_run's checks and
 * errors. On any error (an invalid argument, a batch that does not fit, an error in a row) the
 * state is left as it was. */
rowjit_status rowjit_query_state_fold(rowjit_engine* engine, rowjit_query_state* state, const rowjit_batch* batch,
                                      const rowjit_selection* selection, rowjit_error* error);
/* Adds what `other` folded into `state` (`other` is unchanged and stays the caller's). Both must be
 * states of equal queries (the same text bound to the same schema) and not the same state; else
 * ROWJIT_INVALID_INPUT and `state` is unchanged. No thread may use either meanwhile. */
rowjit_status rowjit_query_state_merge(rowjit_query_state* state, const rowjit_query_state* other,
                                       rowjit_error* error);
/* The state as bytes: `*bytes` (`*length` of them) is the caller's, freed with rowjit_bytes_free.
 * On failure `*bytes` is NULL and `*length` 0. */
rowjit_status rowjit_query_state_serialize(const rowjit_query_state* state, uint8_t** bytes, size_t* length,
                                           rowjit_error* error);
/* A state of `query` from bytes rowjit_query_state_serialize gave for an equal query (the bytes are
 * read, not kept). Bytes that are not such a state (another query's, cut short, not a state's
 * format) are ROWJIT_INVALID_INPUT, and `*out` is NULL; no bytes make it crash or read past
 * `length`. */
rowjit_status rowjit_query_state_deserialize(const rowjit_query* query, const uint8_t* bytes, size_t length,
                                             rowjit_query_state** out, rowjit_error* error);
/* The groups the state holds (0 for NULL). */
int64_t rowjit_query_state_groups(const rowjit_query_state* state);
/* The answer from what the state has folded, as rowjit_query_run returns it. The state is unchanged:
 * folding may go on, and finishing again gives the answer over every row folded. An aggregate's
 * error (a sum past its type) is the call's. */
rowjit_status rowjit_query_state_finish(const rowjit_query_state* state, struct ArrowArray* out,
                                        struct ArrowSchema* out_schema, rowjit_error* error);
void rowjit_query_state_free(rowjit_query_state* state);
/* Frees bytes rowjit returned (rowjit_query_state_serialize, rowjit_top_k_state_serialize); NULL is
 * a no-op. */
void rowjit_bytes_free(void* bytes);

/* Top-k selections: "top_k(SCORE, K)" or "bottom_k(SCORE, K)", optionally followed by "where
 * PREDICATE": the K rows of the largest (smallest) values of a numeric expression among the rows
 * the predicate keeps, in SQL's order (NaN greater than every number, -0.0 equal to 0.0, equal
 * scores: the earlier row first; null scores never kept). The score may be a vector function
 * ("bottom_k(l2_distance(v, [0.5, ...]), 10)"). A state keeps at most K rows, whatever it
 * folds; states of batches and threads merge and travel as bytes, and select the same rows as one
 * pass over all of them. */
typedef struct rowjit_top_k rowjit_top_k;
typedef struct rowjit_top_k_state rowjit_top_k_state;

/* Parses and binds a selection to `schema` (a struct schema, borrowed), as rowjit_query_parse does.
 * `*out` is NULL on failure. */
rowjit_status rowjit_top_k_parse(rowjit_engine* engine, const char* text, const struct ArrowSchema* schema,
                                 rowjit_top_k** out, rowjit_error* error);
/* The canonical text; valid while `top` lives ("" for NULL). */
const char* rowjit_top_k_text(const rowjit_top_k* top);
void rowjit_top_k_free(rowjit_top_k* top);
/* An empty state of `top` (which must outlive it). `*out` is NULL on failure. */
rowjit_status rowjit_top_k_state_new(const rowjit_top_k* top, rowjit_top_k_state** out, rowjit_error* error);
/* Scores a batch and offers its rows to `state`, numbered first_row, first_row + 1, ... (a host
 * numbers its batches on). The batch must fit the schema the selection was bound to. On an error
 * (an invalid argument, a batch that does not fit, an error in a row) the state is unchanged. */
rowjit_status rowjit_top_k_state_fold(rowjit_engine* engine, rowjit_top_k_state* state, const rowjit_batch* batch,
                                      int64_t first_row, rowjit_error* error);
/* Adds what `other` kept (states of equal selections, not the same state). */
rowjit_status rowjit_top_k_state_merge(rowjit_top_k_state* state, const rowjit_top_k_state* other,
                                       rowjit_error* error);
/* The state as bytes (`*bytes`, freed with rowjit_bytes_free), and back: bytes that are not such a
 * state, or a state of another selection, are ROWJIT_INVALID_INPUT. */
rowjit_status rowjit_top_k_state_serialize(const rowjit_top_k_state* state, uint8_t** bytes, size_t* length,
                                           rowjit_error* error);
rowjit_status rowjit_top_k_state_deserialize(const rowjit_top_k* top, const uint8_t* bytes, size_t length,
                                             rowjit_top_k_state** out, rowjit_error* error);
/* The rows kept, best first: a struct array ("+s") of two children, "row" (int64, "l") and "score"
 * (the score's type). The state is unchanged. */
rowjit_status rowjit_top_k_state_finish(const rowjit_top_k_state* state, struct ArrowArray* out,
                                        struct ArrowSchema* out_schema, rowjit_error* error);
void rowjit_top_k_state_free(rowjit_top_k_state* state);

#ifdef __cplusplus
}
#endif

#endif /* ROWJIT_H */
