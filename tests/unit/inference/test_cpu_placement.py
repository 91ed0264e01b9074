"""`--cpu-placement`: which cores the serving process and the engine's threads get."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from translate_server.inference.engine import cpu_placement
from translate_server.inference.engine.cpu_placement import CpuPlan, Skipped, plan


def test_two_cores_one_for_the_front_end_one_for_the_engine_and_its_scheduler() -> None:
    assert plan("split", [0, 1], 1) == CpuPlan(front_end=(1,), engine=((0,),), scheduler=(0,))


def test_enough_cores_give_the_scheduler_one_of_its_own() -> None:
    placement = plan("split", range(16), 2)
    assert placement == CpuPlan(front_end=(14, 15), engine=(tuple(range(13)),), scheduler=(13,))
    assert isinstance(placement, CpuPlan)
    assert placement.omp_bind == "0-12"
    # Three cores: two to the engine rather than one each.
    assert plan("split", [0, 1, 2], 1) == CpuPlan((2,), ((0, 1),), (0, 1))
    assert plan("split", [0, 1, 2, 3], 1) == CpuPlan((3,), ((0, 1),), (2,))


def test_split_gives_each_tensor_parallel_rank_its_own_cores() -> None:
    placement = plan("split", list(range(10)), 1, ranks=2)
    assert isinstance(placement, CpuPlan)
    assert placement.omp_bind == "0-3|4-7"
    assert placement.scheduler == (8,)
    assert placement.front_end == (9,)


def test_allowed_cores_need_not_be_contiguous() -> None:
    placement = plan("split", [8, 2, 3, 5, 9], 1)
    assert isinstance(placement, CpuPlan)
    assert placement.omp_bind == "2-3,5"
    assert placement.scheduler == (8,)
    assert placement.front_end == (9,)


@pytest.mark.parametrize(
    ("policy", "allowed", "front_end", "quota", "environ", "reason"),
    [
        ("shared", [0, 1], 1, None, {}, "policy shared"),
        ("split", [0], 1, None, {}, "leave none"),
        ("split", [0, 1, 2], 3, None, {}, "leave none"),
        ("split", range(64), 1, 4.0, {}, "quota"),
        ("split", [0, 1], 1, None, {"VLLM_CPU_OMP_THREADS_BIND": "nobind"}, "operator"),
        ("split", [0, 1], 1, None, {"VLLM_CPU_OMP_THREADS_BIND": "0-1"}, "operator"),
    ],
)
def test_placement_steps_aside(
    policy: str,
    allowed: list[int],
    front_end: int,
    quota: float | None,
    environ: dict[str, str],
    reason: str,
) -> None:
    placement = plan(policy, allowed, front_end, cpu_quota=quota, environ=environ)
    assert isinstance(placement, Skipped)
    assert reason in placement.reason


def test_a_binding_this_process_set_before_is_not_an_operators() -> None:
    # A second engine in the same process finds the first one's binding in the environment.
    environ = {"VLLM_CPU_OMP_THREADS_BIND": "0", "VLLM_CPU_OMP_THREADS_BIND_": "x"}
    assert plan("split", [0, 1], 1, environ=environ) == CpuPlan((1,), ((0,),), (0,))


def test_a_quota_of_every_allowed_core_still_splits() -> None:
    assert isinstance(plan("split", [0, 1, 2, 3], 1, cpu_quota=4.0), CpuPlan)


@pytest.mark.parametrize(
    ("text", "quota"),
    [("200000 100000\n", 2.0), ("max 100000\n", None), ("150000 100000", 1.5), ("junk", None)],
)
def test_cgroup_v2_quota(tmp_path: Path, text: str, quota: float | None) -> None:
    (tmp_path / "cpu.max").write_text(text)
    assert cpu_placement.cgroup_cpu_quota(str(tmp_path)) == quota
    assert cpu_placement.cgroup_cpu_quota(str(tmp_path / "absent")) is None


@pytest.mark.parametrize(("quota", "cores"), [("300000", 3.0), ("-1", None)])
def test_cgroup_v1_quota(tmp_path: Path, quota: str, cores: float | None) -> None:
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text(quota + "\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert cpu_placement.cgroup_cpu_quota(str(tmp_path)) == cores


def test_cpu_list_is_compact() -> None:
    assert cpu_placement.cpu_list([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"
    assert cpu_placement.cpu_list([3]) == "3"


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_every_thread_is_pinned_and_the_engine_bound() -> None:
    # In a child process: pinning this one would confine the rest of the test session.
    script = textwrap.dedent(
        """
        import os, threading, time
        from translate_server.inference.engine import cpu_placement
        started = threading.Event()
        threading.Thread(target=lambda: (started.set(), time.sleep(5)), daemon=True).start()
        started.wait()
        cores = sorted(os.sched_getaffinity(0))
        placement = cpu_placement.plan("split", cores, 1, environ=os.environ)
        cpu_placement.before_engine_start(placement, os.environ)
        tasks = [int(t) for t in os.listdir("/proc/self/task")]
        during = {tuple(sorted(os.sched_getaffinity(t))) for t in tasks}
        assert during == {placement.scheduler}, (during, placement)
        cpu_placement.after_engine_start(placement)
        print(len(tasks), sorted({tuple(sorted(os.sched_getaffinity(t))) for t in tasks}))
        rest = cpu_placement.cpu_list(cores[:-1])
        print(os.environ["VLLM_CPU_OMP_THREADS_BIND"], cores[-1], rest)
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("VLLM_CPU_OMP_THREADS_BIND", None)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    threads_line, bind_line = result.stdout.splitlines()
    threads, affinities = threads_line.split(" ", 1)
    bind, last, rest = bind_line.split()
    assert int(threads) >= 2
    assert affinities == f"[({last},)]"  # every thread, the one started before too
    assert bind == rest
