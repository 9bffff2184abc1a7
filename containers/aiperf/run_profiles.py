"""Runs `aiperf profile` RUNS times, one run after the other, from one Python process.

Usage: python run_profiles.py RUNS ARTIFACT_ROOT AIPERF_PROFILE_ARGS...

RUNS == 1: one run with the arguments as given (they name --artifact-dir). RUNS > 1: run n
writes to ARTIFACT_ROOT/profile_runs/run_NNNN (AIPerf's own multi-run layout). The first failing
run stops the loop; the exit status is its status.

Why one process: every `aiperf profile` spends about 2 s of CPU importing AIPerf before it
sends anything, and its eight service processes import what they use on top. Here AIPerf is
imported once; each run is a fork of this process that enters AIPerf's own CLI entry point
(aiperf.cli:app, the `aiperf` console script) with the same argv, so each run is still a fresh
SystemController with its own services, its own seed and its own exports, as a separate
`aiperf profile` process is: AIPerf itself forks its services from the controller
(controller/multiprocess_service_manager.py, Linux start method "fork") and ends every run with
os._exit (cli_runner/_single_run.py), so a run cannot leave state behind in this process.
AIPerf 0.13.0's own --num-profile-runs cannot be used (it refuses audio_transcription) and would
start a new interpreter per run anyway (orchestrator/local_executor.py).
"""

import gc
import os
import sys
import time

READY = ".aiperf_results_ready.json"  # aiperf/common/results_markers.py READY_MARKER_NAME

# The plugins (plugin/plugins.yaml) a run of the suite's profiles loads, as AIPerf's DEBUG log
# lists them ("Loaded <category>:<name>"), imported here once so that each run's processes
# inherit them instead of importing them again: the services, their transport, the single_turn
# dataset path, the record processing and the exporters. Importing a module earlier runs the
# same code with the same environment; it sends and measures nothing.
PRELOAD = {
    "service": ["system_controller", "dataset_manager", "record_processor", "records_manager",
                "server_metrics_manager", "timing_manager", "worker", "worker_manager"],
    "service_manager": ["multiprocessing"],
    "communication": ["zmq_ipc"],
    "communication_client": ["pub", "sub", "push", "pull", "request", "reply", "streaming_dealer",
                             "streaming_router", "streaming_push", "streaming_pull"],
    "zmq_proxy": ["dealer_router", "push_pull", "xpub_xsub"],
    "ui": ["none", "simple"],
    "transport": ["http"],
    "dataset_composer": ["custom"],
    "custom_dataset_loader": ["single_turn"],
    "dataset_backing_store": ["memory_map"],
    "dataset_client_store": ["memory_map"],
    "dataset_sampler": ["sequential"],
    "timing_strategy": ["request_rate"],
    "arrival_pattern": ["concurrency_burst"],
    "record_processor": ["metric_record"],
    "record_observer": ["raw_record_writer"],
    "accumulator": ["metric_results", "server_metrics"],
    "stream_exporter": ["record_export", "server_metrics_jsonl_writer"],
    "data_exporter": ["csv", "json", "raw_record_aggregator", "server_metrics_csv", "server_metrics_json"],
    "console_exporter": ["metrics", "errors", "api_errors"],
}


def preload(endpoint_type, tokenizer):
    from aiperf.plugin import plugins

    wanted = dict(PRELOAD, endpoint=[endpoint_type] if endpoint_type else [])
    for category, names in wanted.items():
        for name in names:
            try:
                plugins.get_class(category, name)
            except Exception as e:  # only a cost: the run imports it itself
                print(f"run_profiles: not preloaded {category}:{name}: {e}", file=sys.stderr)
    if tokenizer:
        # Every process that loads the tokenizer imports transformers' AutoTokenizer on its own
        # (common/tokenizer.py); importing it here (not loading a tokenizer, which AIPerf's own
        # dataset/_tokenizer_preload.py also keeps fork-safe) spares each run's processes that.
        try:
            from transformers import AutoTokenizer  # noqa: F401
        except Exception as e:
            print(f"run_profiles: transformers not preloaded: {e}", file=sys.stderr)


def settle(artifact_dir, wait=60.0, poll=0.5):
    """Waits until the run's exports are complete.

    AIPerf's controller writes the ready marker after every export, the raw-record aggregation
    included (controller/system_controller.py: export_data, then _announce_results_exported), and
    it is the process that just exited: with the marker there, nothing more is written. Only a
    run that ended without the marker is given time, and its raw export until it stops growing.
    """
    marker = os.path.join(artifact_dir, READY)
    deadline = time.monotonic() + wait
    while not os.path.exists(marker) and time.monotonic() < deadline:
        time.sleep(poll)
    if os.path.exists(marker):
        return
    raw, last = os.path.join(artifact_dir, "profile_export_raw.jsonl"), -1
    for _ in range(60):
        size = os.path.getsize(raw) if os.path.exists(raw) else 0
        if size == last:
            return
        last = size
        time.sleep(poll)


def container_cpu_seconds():
    """The CPU time this container has used so far (its cgroup's own counter), or None.

    Load on the machine stretches a run's wall time but not the CPU it needs, so each run's
    cost is printed as CPU-seconds too (harness/cost/README.md reads them from aiperf.stderr).
    """
    try:
        with open("/sys/fs/cgroup/cpuacct/cpuacct.usage") as f:  # cgroup v1: nanoseconds
            return int(f.read()) / 1e9
    except (OSError, ValueError):
        pass
    try:
        with open("/sys/fs/cgroup/cpu.stat") as f:  # cgroup v2: usage_usec
            for line in f:
                key, value = line.split()
                if key == "usage_usec":
                    return int(value) / 1e6
    except (OSError, ValueError):
        pass
    return None


def report_cpu(label, since):
    now = container_cpu_seconds()
    if now is not None and since is not None:
        print(f"run_profiles: {label}: {now - since:.2f} CPU-s (container cgroup)", file=sys.stderr)
    return now


def run_once(app, argv):
    """Runs one `aiperf profile` in a forked child and returns its exit status."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            sys.argv = ["aiperf", *argv]  # the CLI command AIPerf records is read from argv
            app(argv)
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException as e:
            print(f"run_profiles: aiperf profile raised {e!r}", file=sys.stderr)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def option(args, name):
    for i, a in enumerate(args[:-1]):
        if a == name:
            return args[i + 1]
    return None


def main(argv):
    runs, root, args = int(argv[0]), argv[1], argv[2:]
    cpu = container_cpu_seconds()
    from aiperf.cli import app

    preload(option(args, "--endpoint-type"), option(args, "--tokenizer"))
    # Everything imported so far lives as long as this process. Frozen, the garbage collector of
    # every process forked from here (the run, its eight services) no longer walks it: AIPerf's
    # own collections (three in the worker and timing manager before they disable the collector,
    # common/bootstrap.py; two in the dataset manager) then cost CPU in proportion to what the
    # run itself allocated, and do not write to the inherited pages, which stay shared.
    gc.freeze()
    cpu = report_cpu("import and preload", cpu)
    if runs <= 1:
        code = run_once(app, ["profile", *args])
        settle(option(args, "--artifact-dir") or root)
        report_cpu("run 1", cpu)
        return code
    for n in range(1, runs + 1):
        run_dir = os.path.join(root, "profile_runs", f"run_{n:04d}")
        os.makedirs(run_dir, exist_ok=True)
        code = run_once(app, ["profile", *args, "--artifact-dir", run_dir])
        if code != 0:
            return code
        settle(run_dir)
        cpu = report_cpu(f"run {n}", cpu)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
