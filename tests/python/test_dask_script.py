"""Dask from a script (tests): a script that starts a LocalCluster without
`if __name__ == "__main__":` is refused at once with a RuntimeError naming the guard (unguarded,
each spawned worker runs the script again and the cluster never starts); the same script with
the guard runs. Each script is written to a temporary folder and run in a subprocess with a
timeout, so that a hang fails the test."""
import os
import subprocess
import sys
import textwrap

import rowjit

BODY = """
    import dask.array as da
    from distributed import Client, LocalCluster
    import rowjit.dask
"""
WORK = """
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None)
    client = Client(cluster)
    a = da.arange(1000, chunks=250, dtype="int32")
    print(rowjit.dask.aggregate("sum(a * k)", a=a, k=2).compute())
    client.close()
    cluster.close()
"""


def run_script(tmp_path, text, timeout=120):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(text))
    package = os.path.dirname(os.path.dirname(os.path.abspath(rowjit.__file__)))  # this rowjit, from any folder
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=str(tmp_path))


def test_an_unguarded_cluster_is_refused_at_once(tmp_path):
    done = run_script(tmp_path, BODY + WORK, timeout=60)
    assert done.returncode != 0
    assert "RuntimeError" in done.stderr and 'if __name__ == "__main__":' in done.stderr
    assert "script.py line 6 starts a Dask cluster" in done.stderr
    assert done.stdout == ""


def test_the_same_script_with_the_guard_runs(tmp_path):
    guarded = BODY + "\n    if __name__ == \"__main__\":" + textwrap.indent(textwrap.dedent(WORK), "        ")
    done = run_script(tmp_path, guarded)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == str(2 * sum(range(1000)))


def test_a_client_of_a_remote_scheduler_is_not_refused(tmp_path):
    # Client("tcp://...") and LocalCluster(processes=False) start no process: nothing to guard (the
    # script stops before either runs).
    done = run_script(tmp_path, BODY + """
    import sys
    if len(sys.argv) > 5:
        Client("tcp://127.0.0.1:1")
        LocalCluster(processes=False)   # threads in this process: nothing is spawned
    print("imported")
    """, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "imported"
