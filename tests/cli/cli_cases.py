#!/usr/bin/env python3
"""End-to-end cases of `rowjit eval` over CSV input and output, and its exit statuses.

    tests/cli/cli_cases.py --list              the case names, one a line (CMake adds a test each)
    tests/cli/cli_cases.py ROWJIT NAME...      runs the named cases with the CLI binary ROWJIT

A case is the arguments of `rowjit` (`{data}` is this folder, `{tmp}` a fresh temporary folder),
optional bytes on standard input, and what must come out: the exit status, the whole of stdout
(or None: not checked), a regular expression stderr must contain, and files the run must write.
Every eval runs with --no-disk-cache. Expected outputs are written by hand from the rules in
docs/cli.md, not copied from a run. Exit 0 when every named case passes, 1 otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

ORDERS = "{data}/orders.csv"
INFERRED = b'a,b,c,d\n1,2.5,true,x\n,3,false,\n-7,,TRUE,"q,r"\n'


def case(args, exit=0, stdout=None, stderr=None, stdin=None, files=None):
    return {"args": args, "exit": exit, "stdout": stdout, "stderr": stderr, "stdin": stdin, "files": files or {}}


EVERY_ORDERS_COLUMN = ["--expr", "id", "--expr", "item", "--expr", "price", "--expr", "qty", "--expr", "day",
                       "--expr", "note"]

CASES = {
    # A nested value's rows as text: fields named, strings quoted, dates and decimals as their
    # columns print, a null element as null.
    "print_built_struct": case(
        ["eval", "--expr", "struct_pack(item, day, p := [price, null])", "--input", ORDERS, "--print", "10"],
        stdout="struct_pack(item, day, p := [price, null])\n"
               "{item: 'apple', day: 2024-03-01, p: [1.25, null]}\n"
               "{item: 'pear', day: 2024-03-01, p: [null, null]}\n"
               "{item: 'melon, large', day: 2024-03-02, p: [3.10, null]}\n"
               "{item: 'fig', day: 2024-02-29, p: [0.99, null]}\n"),
    # --- CSV in, table and CSV out ---------------------------------------------------------------
    # orders.csv: id and qty inferred i64, item utf8, price typed decimal(10,2)? by its header, day
    # date32, note utf8? (a null, an empty string, embedded quotes, a field over two lines).
    "print_every_column": case(
        ["eval", *EVERY_ORDERS_COLUMN, "--input", ORDERS, "--print", "10"],
        stdout="id  item          price  qty  day         note\n"
               " 1  apple          1.25    4  2024-03-01  null\n"
               " 2  pear           null    2  2024-03-01\n"
               ' 3  melon, large   3.10    1  2024-03-02  said "ripe"\n'
               " 4  fig            0.99   10  2024-02-29  two\\nlines\n"),
    "output_every_column": case(
        ["eval", *EVERY_ORDERS_COLUMN, "--input", ORDERS, "--output", "-"],
        stdout="id,item,price,qty,day,note\n"
               "1,apple,1.25,4,2024-03-01,\n"
               '2,pear,,2,2024-03-01,""\n'
               '3,"melon, large",3.10,1,2024-03-02,"said ""ripe"""\n'
               '4,fig,0.99,10,2024-02-29,"two\nlines"\n'),
    "output_to_file": case(
        ["eval", "--expr", "item", "--expr", "price * qty as total", "--input", ORDERS, "--output", "{tmp}/out.csv"],
        stdout="",
        files={"out.csv": 'item,total\napple,5.00\npear,\n"melon, large",3.10\nfig,9.90\n'}),
    "print_decimal_product_with_null": case(
        ["eval", "price * qty as total", "--input", ORDERS, "--print", "10"],
        stdout="total\n 5.00\n null\n 3.10\n 9.90\n"),
    "print_truncated": case(
        ["eval", "id", "--input", ORDERS, "--print", "2"],
        stdout="id\n 1\n 2\n(2 more rows)\n"),
    "print_under_filter": case(
        ["eval", "--expr", "item", "--expr", "qty", "--filter", "qty >= 2", "--input", ORDERS, "--print", "10"],
        stdout="item   qty\napple    4\npear     2\nfig     10\n"),
    "print_aggregate_sum": case(
        ["eval", "sum(price * qty)", "--input", ORDERS, "--print", "1"],
        stdout="sum(price * qty)\n           18.00\n"),
    "print_aggregate_min_max": case(
        ["eval", "min_max(day) as span", "--input", ORDERS, "--print", "1"],
        stdout="span.min    span.max\n2024-02-29  2024-03-02\n"),
    "output_aggregate_count": case(
        ["eval", "count(price)", "--input", ORDERS, "--output", "-"],
        stdout="count(price)\n3\n"),
    "output_one_column_null_is_an_empty_line": case(
        ["eval", "note", "--input", ORDERS, "--output", "-"],
        stdout='note\n\n""\n"said ""ripe"""\n"two\nlines"\n'),
    "one_column_empty_line_reads_as_null": case(
        ["eval", "note is null", "--input", "-", "--output", "-"], stdin=b'note\n\n""\nx\n',
        stdout="note is null\ntrue\nfalse\nfalse\n"),
    "stdin_crlf_and_quotes": case(
        ["eval", "--expr", "a", "--expr", "s", "--input", "-", "--output", "-"],
        stdin=b'a,s\r\n1,"x,y"\r\n,"multi\r\nline"\r\n3,""\r\n',
        stdout='a,s\n1,"x,y"\n,"multi\r\nline"\n3,""\n'),
    "inferred_schema_in_summary": case(
        ["eval", "a", "--input", "-"], stdin=INFERRED,
        stdout=None, stderr=None),
    "print_inferred_types": case(
        ["eval", "--expr", "a", "--expr", "b", "--expr", "c", "--expr", "d", "--input", "-", "--print", "5"],
        stdin=INFERRED,
        stdout="   a     b  c      d\n   1   2.5  true   x\nnull     3  false  null\n  -7  null  true   q,r\n"),
    "null_spelling_in_and_out": case(
        ["eval", "--expr", "a", "--expr", "s", "--input", "-", "--null", "NA", "--output", "-"],
        stdin=b'a,s\nNA,NA\n1,"NA"\n2,\n',
        stdout='a,s\nNA,NA\n1,"NA"\n2,\n'),
    "null_spelling_printed_as_null": case(
        ["eval", "--expr", "a", "--expr", "s", "--input", "-", "--null", "NA", "--print", "5"],
        stdin=b'a,s\nNA,NA\n1,"NA"\n2,\n',
        stdout="   a  s\nnull  null\n   1  NA\n   2\n"),
    "schema_types_columns_and_ignores_others": case(
        ["eval", "qty * 1000", "--input", ORDERS, "--schema", "qty:i16", "--print", "5"],
        stdout="qty * 1000\n      4000\n      2000\n      1000\n     10000\n"),
    "schema_decimal_rounds_as_the_cast": case(
        ["eval", "p", "--input", "-", "--schema", "p:decimal(4,1)", "--output", "-"],
        stdin=b"p\n1.25\n-1.25\n0.99\n0.05\n",
        stdout="p\n1.3\n-1.3\n1.0\n0.1\n"),
    "timestamps_and_intervals_as_text": case(
        ["eval", "--expr", "t", "--expr", "i", "--input", "-", "--output", "-"],
        stdin=b'"t:timestamp(us, Europe/Paris)",i:interval_month_day_nano?\n'
              b"2024-07-01 12:00:00,1 year 2 months 3 days\n"
              b"2024-07-01 10:00:00Z,2 days\n"
              b"2024-01-15 08:30:00.25,\n",
        stdout="t,i\n2024-07-01 12:00:00+02:00,14 months 3 days\n2024-07-01 12:00:00+02:00,2 days\n"
               "2024-01-15 08:30:00.25+01:00,\n"),
    "binary_as_hex": case(
        ["eval", "b", "--input", "-", "--output", "-"], stdin=b"b:binary?\nab\n\n",
        stdout="b\n\\x6162\n\n"),
    "verify_agrees": case(
        ["eval", "price * qty", "--input", ORDERS, "--verify", "--print", "1"],
        stdout="price * qty\n       5.00\n(3 more rows)\n", stderr=r"verify    ok"),

    # --- aggregate queries: one row per group, the GROUP BY columns then the aggregates ------------
    # orders.csv by day: 2024-02-29 fig (qty 10, 0.99); 2024-03-01 apple (4, 1.25) and pear (2,
    # null); 2024-03-02 melon (1, 3.10). Groups in ascending key order.
    "query_grouped_print": case(
        ["eval", "sum(qty), count(price), count(*), max(price) group by day", "--input", ORDERS, "--print", "10"],
        stdout="day         sum(qty)  count(price)  count(*)  max(price)\n"
               "2024-02-29        10             1         1        0.99\n"
               "2024-03-01         6             1         2        1.25\n"
               "2024-03-02         1             1         1        3.10\n"),
    # WHERE id > 1 drops apple; FILTER counts the rows with qty > id (fig only); pear's price is
    # null, so 2024-03-01's avg is null (an empty field).
    "query_where_and_filter_output": case(
        ["eval", "sum(qty), count(*) filter (where qty > id), avg(price) group by day where id > 1",
         "--input", ORDERS, "--output", "-"],
        stdout="day,sum(qty),count(*) filter (where qty > id),avg(price)\n"
               "2024-02-29,10,1,0.99\n"
               "2024-03-01,2,0,\n"
               "2024-03-02,1,0,3.1\n"),
    # Nulls form one group, the last.
    "query_null_key_last": case(
        ["eval", "count(*), sum(qty) group by price", "--input", ORDERS, "--print", "10"],
        stdout="price  count(*)  sum(qty)\n"
               " 0.99         1        10\n"
               " 1.25         1         4\n"
               " 3.10         1         1\n"
               " null         1         2\n"),
    # Without GROUP BY: one row even when WHERE keeps none (sum null, count 0); with it, no row.
    "query_no_rows_kept": case(
        ["eval", "sum(qty), count(*) where id > 100", "--input", ORDERS, "--output", "-"],
        stdout="sum(qty),count(*)\n,0\n"),
    "query_no_groups_kept": case(
        ["eval", "sum(qty), count(*) group by day where id > 100", "--input", ORDERS, "--output", "-"],
        stdout="day,sum(qty),count(*)\n"),
    "query_count_star_alone": case(
        ["eval", "count(*)", "--input", ORDERS, "--print", "1"],
        stdout="count(*)\n       4\n"),
    "query_verify_agrees": case(
        ["eval", "sum(qty), avg(price), min(item) group by day where qty < 10", "--input", ORDERS, "--verify",
         "--print", "5"],
        stdout="day         sum(qty)  avg(price)  min(item)\n"
               "2024-03-01         6        1.25  apple\n"
               "2024-03-02         1         3.1  melon, large\n",
        stderr=r"verify    ok"),
    "query_summary_table": case(
        ["eval", "sum(qty), count(*) group by day", "--input", ORDERS, "--verify"],
        stdout=None),
    "query_caret_under_unknown_column": case(
        ["eval", "sum(qty), avg(qtty) group by day", "--input", ORDERS, "--print", "5"], exit=2, stdout="",
        stderr=re.escape("unknown column 'qtty' (did you mean 'qty'?)\n  sum(qty), avg(qtty) group by day\n"
                         "                ^~~~\n")),
    "query_caret_under_group_by_column": case(
        ["eval", "sum(qty), count(*) group by dya", "--input", ORDERS], exit=2, stdout=None,
        stderr=re.escape("unknown column 'dya' (did you mean 'day'?)\n  sum(qty), count(*) group by dya\n"
                         "                              ^~~\n")),
    "query_with_filter_refused": case(
        ["eval", "sum(qty) group by day", "--filter", "qty > 1", "--input", ORDERS, "--print", "5"], exit=2,
        stdout="", stderr=r"not an aggregate query \(its WHERE clause filters its rows\)"),
    "query_overflow_exits_1": case(
        ["eval", "sum(qty * 1000000000000000000), count(*) group by day", "--input", ORDERS, "--verify",
         "--output", "-"],
        exit=1, stdout="", stderr=r"verify    ok[\s\S]*overflow: mul at row 3 \(\S*orders\.csv line 5\)"),

    # --- failing rows: exit 1, the first failure with its row, function and line -----------------
    "row_overflow_exits_1": case(
        ["eval", "qty * 1000000000000000000", "--input", ORDERS, "--print", "5"],
        exit=1, stdout="", stderr=r"rowjit: overflow: mul at row 3 \(\S*orders\.csv line 5\)"),
    "schema_type_makes_rows_fail": case(
        ["eval", "qty * 10000", "--input", ORDERS, "--schema", "qty:i16", "--output", "-"],
        exit=1, stdout="", stderr=r"overflow: mul at row 0 \(\S*orders\.csv line 2\)"),
    "cast_in_expression_exits_1": case(
        ["eval", "cast(item, decimal(10,2))", "--input", ORDERS, "--print", "5"],
        exit=1, stdout="",
        stderr=r"invalid input: text_to_decimal at row 0 \(\S*orders\.csv line 2\): 'apple' is not a valid "
               r"decimal64\(10,2\)"),
    "filter_row_error_exits_1": case(
        ["eval", "id", "--filter", "cast(note, i64) > 0", "--input", ORDERS, "--print", "5"],
        exit=1, stdout="", stderr=r"at row 1 \(\S*orders\.csv line 3\)"),
    "verify_with_failing_rows_exits_1": case(
        ["eval", "qty * 1000000000000000000", "--input", ORDERS, "--verify", "--output", "-"],
        exit=1, stdout="", stderr=r"verify    ok[\s\S]*overflow: mul at row 3"),
    "summary_with_failing_rows_exits_1": case(
        ["eval", "qty * 1000000000000000000", "--input", ORDERS],
        exit=1, stdout=None, stderr=None),
    "random_input_failing_rows_exits_1": case(
        ["eval", "a * 1000000", "--schema", "a:i32", "--rows", "1000"], exit=1),
    "random_input_verify_failing_rows_exits_1": case(
        ["eval", "a * 1000000", "--schema", "a:i32?", "--rows", "1000", "--verify"], exit=1),
    "random_input_exits_0": case(["eval", "a = 1", "--schema", "a:i8?", "--rows", "1000", "--verify"]),
    "random_input_print": case(
        ["eval", "1 + 1 as two", "--schema", "a:i8", "--rows", "2", "--print", "5"],
        stdout="two\n  2\n  2\n"),

    # --- usage, parse and input errors: exit 2 -----------------------------------------------------
    "missing_file_exits_2": case(
        ["eval", "id", "--input", "{data}/no-such-file.csv", "--print", "1"],
        exit=2, stdout="", stderr=r"i/o error: cannot open \S*no-such-file\.csv: No such file or directory"),
    "field_does_not_parse_exits_2": case(
        ["eval", "a", "--input", "-", "--print", "1"], stdin=b"a:i32\n1\n2x\n",
        exit=2, stdout="", stderr=r"standard input line 3, column 'a': '2x' is not a valid i32"),
    "null_in_non_nullable_column_exits_2": case(
        ["eval", "a", "--input", "-", "--print", "1"], stdin=b"a:i32,b\n1,x\n,y\n",
        exit=2, stdout="",
        stderr=r"standard input line 3, column 'a': an empty field \(null\) in a column that is not nullable "
               r"\(declare it a:i32\?\)"),
    "unclosed_quote_exits_2": case(
        ["eval", "a", "--input", "-", "--print", "1"], stdin=b'a,b\n1,"x\n2,y\n',
        exit=2, stdout="", stderr=r"standard input: line 2: a quoted field is not closed"),
    "wrong_field_count_exits_2": case(
        ["eval", "a", "--input", "-", "--print", "1"], stdin=b"a,b\n1,2\n3\n",
        exit=2, stdout="", stderr=r"standard input: line 3: 1 field, the header has 2"),
    "header_type_cut_at_a_comma_exits_2": case(
        ["eval", "p", "--input", "-", "--print", "1"], stdin=b"p:decimal(10,2)\n1.5\n",
        exit=2, stdout="", stderr=r"header cell 1 'p:decimal\(10' ends at a comma inside its type"),
    "invalid_utf8_exits_2": case(
        ["eval", "s", "--input", "-", "--print", "1"], stdin=b"s\nok\n\xff\n",
        exit=2, stdout="", stderr=r"standard input line 3, column 's': the field is not UTF-8"),
    "schema_column_missing_exits_2": case(
        ["eval", "qty", "--input", ORDERS, "--schema", "qty:i16, weight:f64", "--print", "1"],
        exit=2, stdout="",
        stderr=r"column 'weight' of --schema is not in the header \(its columns: id, item, price, qty, day, note\)"),
    "schema_disagrees_with_header_exits_2": case(
        ["eval", "day", "--input", ORDERS, "--schema", "day:date64", "--print", "1"],
        exit=2, stdout="", stderr=r"the header types column 'day' as date32, --schema as date64"),
    "bad_schema_exits_2": case(
        ["eval", "qty", "--input", ORDERS, "--schema", "qty:i3", "--print", "1"],
        exit=2, stdout="", stderr=r"unknown type 'i3'"),
    "bad_expression_exits_2": case(
        ["eval", "qty +", "--input", ORDERS, "--print", "1"], exit=2, stdout="", stderr=r"syntax error"),
    "unknown_column_exits_2": case(
        ["eval", "weight * 2", "--input", ORDERS, "--print", "1"], exit=2, stdout="",
        stderr=r"unknown column 'weight'"),
    # Parse and bind errors show the text they are about with a caret under the span (exit 2).
    "caret_under_unknown_function": case(
        ["eval", "sqroot(qty)", "--input", ORDERS, "--print", "1"], exit=2, stdout="",
        stderr=re.escape("unknown function 'sqroot' (did you mean 'sqrt'?)\n  sqroot(qty)\n  ^~~~~~\n")),
    "caret_under_filter_column": case(
        ["eval", "--expr", "qty", "--filter", "qty >= 2 and qtty < 9", "--input", ORDERS, "--print", "1"],
        exit=2, stdout="",
        stderr=re.escape("unknown column 'qtty' (did you mean 'qty'?)\n  qty >= 2 and qtty < 9\n"
                         "               ^~~~\n")),
    "caret_under_schema_precision": case(
        ["eval", "qty", "--input", ORDERS, "--schema", "qty:i64, price:decimal(40,2)?", "--print", "1"],
        exit=2, stdout="",
        stderr=re.escape("\n  qty:i64, price:decimal(40,2)?\n                         ^~\n")),
    "caret_under_malformed_number_random_input": case(
        ["eval", "a + 12.3.4", "--schema", "a:f64"], exit=2, stdout="",
        stderr=re.escape("malformed number '12.3.4'\n  a + 12.3.4\n          ^\n")),
    "random_options_refused_with_input": case(
        ["eval", "qty", "--input", ORDERS, "--rows", "5"], exit=2, stdout="",
        stderr=r"--rows makes random input: it cannot be given with --input"),
    "print_and_output_to_stdout_refused": case(
        ["eval", "qty", "--input", ORDERS, "--print", "1", "--output", "-"], exit=2, stdout="",
        stderr=r"--print and --output - would both write to standard output"),
    "expression_and_input_both_stdin_refused": case(
        ["eval", "-", "--input", "-"], stdin=b"a\n1\n", exit=2, stdout="",
        stderr=r"EXPR and --input cannot both be standard input"),
    "input_is_an_option_of_eval_only": case(
        ["ir", "a + 1", "--schema", "a:i32", "--input", ORDERS], exit=2, stdout="",
        stderr=r"--input, --print, --output and --null are options of eval"),
}

# Cases whose stdout holds timings: a line that must be there instead of the whole text.
SUMMARY_LINES = {
    "inferred_schema_in_summary": "input     standard input: 3 rows of a:i64?, b:f64?, c:bool, d:utf8?\n",
    "summary_with_failing_rows_exits_1": "jit       error overflow: mul at row 3 (",
    "random_input_failing_rows_exits_1": "jit       error overflow: mul at row ",
    "random_input_verify_failing_rows_exits_1": "verify    ok: both report overflow: mul at row ",
    "random_input_exits_0": "verify    ok: 1000 rows identical\n",
    "query_summary_table": "query     sum(qty), count(*) group by day\njit       3 groups\n"
                           "day         sum(qty)  count(*)\n"
                           "2024-02-29        10         1\n"
                           "2024-03-01         6         2\n"
                           "2024-03-02         1         1\n",
}


def run(rowjit, name):
    c = CASES[name]
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        args = [a.replace("{data}", here).replace("{tmp}", tmp) for a in c["args"]]
        if args[0] == "eval":
            args.append("--no-disk-cache")
        p = subprocess.run([rowjit, *args], input=c["stdin"] or b"", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        problems = []
        if p.returncode != c["exit"]:
            problems.append(f"exit status {p.returncode}, expected {c['exit']}")
        if c["stdout"] is not None and out != c["stdout"]:
            problems.append(f"stdout differs:\n--- expected\n{c['stdout']}--- actual\n{out}---")
        if name in SUMMARY_LINES and SUMMARY_LINES[name] not in out:
            problems.append(f"stdout lacks {SUMMARY_LINES[name]!r}:\n{out}")
        if c["stderr"] is not None and not re.search(c["stderr"], err):
            problems.append(f"stderr does not match {c['stderr']!r}:\n{err}")
        for file, want in c["files"].items():
            path = os.path.join(tmp, file)
            got = open(path, encoding="utf-8", newline="").read() if os.path.exists(path) else None
            if got != want:
                problems.append(f"{file}: expected {want!r}, found {got!r}")
    if problems:
        print(f"FAILED {name}: rowjit {' '.join(args)}")
        for problem in problems:
            print("  " + problem)
        if "exit status" in problems[0]:
            print(f"  stdout:\n{out}\n  stderr:\n{err}")
        return False
    print(f"ok {name}")
    return True


def main(argv):
    if argv == ["--list"]:
        print("\n".join(CASES))
        return 0
    if len(argv) < 2 or any(n not in CASES for n in argv[1:]):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    results = [run(argv[0], name) for name in argv[1:]]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
