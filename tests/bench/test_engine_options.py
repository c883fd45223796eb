"""Checking --gpus, --shard and --cluster before anything runs, and the merge command."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from gcbench.bench import cluster, runner
from gcbench.bench.gpus import count_gpus, resolve_gpus
from gcbench.bench.options import RunOptions
from gcbench.bench.shard import parse_shard
from gcbench.errors import GcbenchError, GpuUnavailableError, SpecError


@pytest.fixture
def fake_smi(tmp_path, monkeypatch):
    """An nvidia-smi on PATH that lists two GPUs, the second split into a MIG instance."""
    tool = tmp_path / "nvidia-smi"
    tool.write_text(
        "#!/bin/sh\necho 'GPU 0: NVIDIA H200 (UUID: GPU-a)'\n"
        "echo 'GPU 1: NVIDIA H200 (UUID: GPU-b)'\n"
        "echo '  MIG 1g.18gb     Device  0: (UUID: MIG-c)'\n"
    )
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)


def test_gpus_are_nvidia_smi_indices(fake_smi):
    assert count_gpus() == 2
    assert resolve_gpus("all", "gpu") == ["0", "1"]
    assert resolve_gpus("1, 0,1", "gpu") == ["1", "0"]
    with pytest.raises(SpecError, match=r"--gpus 2: nvidia-smi -L lists 2 GPU\(s\), indices 0..1"):
        resolve_gpus([0, 2], "gpu")


def test_gpus_are_positions_in_cuda_visible_devices(fake_smi, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,5")
    assert resolve_gpus("all", "gpu") == ["3", "5"]
    assert resolve_gpus("1", "gpu") == ["5"]
    with pytest.raises(SpecError, match="CUDA_VISIBLE_DEVICES=3,5 shows 2 GPU"):
        resolve_gpus("2", "gpu")


def test_gpus_without_nvidia_smi_or_on_the_cpu(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert count_gpus() is None
    with pytest.raises(GpuUnavailableError, match="lists no GPU"):
        resolve_gpus("all", "gpu")
    assert resolve_gpus("0,7", "cpu") == ["0", "7"]  # slots, not checked
    with pytest.raises(SpecError, match="--gpus all needs a GPU run"):
        resolve_gpus("all", "cpu")
    for bad in ("", "0,x", "-1"):
        with pytest.raises(SpecError, match="--gpus"):
            resolve_gpus(bad, "cpu")


def test_shard_values():
    assert parse_shard("2/3") == (2, 3) and parse_shard((1, 1)) == (1, 1)
    for bad in ("0/3", "4/3", "1/0", "1-3", "a/b"):
        with pytest.raises(SpecError, match="--shard"):
            parse_shard(bad)


def test_cluster_options_are_checked():
    assert cluster.check("local", ["0"], "cpu") == cluster.Target(None, ["0"])
    assert cluster.check("tcp://h:8786", None, "gpu") == cluster.Target("tcp://h:8786")
    with pytest.raises(SpecError, match="--gpus applies to --cluster local only"):
        cluster.check("tcp://h:8786", ["0"], "gpu")


def test_a_remote_cluster_takes_device_gpu_without_a_local_probe():
    assert RunOptions(cluster="tcp://h:8786").remote_cluster
    assert not RunOptions(cluster="local").remote_cluster and not RunOptions().remote_cluster
    choice = runner.choose_device("gpu", remote=True)
    assert choice.backend == "gpu" and "cluster" in choice.message


def test_unreachable_scheduler_is_one_line_and_leaves_no_file(bench_env, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1.0)
    with pytest.raises(GcbenchError, match="cannot reach the Dask scheduler"):
        runner.run(graphs=["gen:cycle?n=5"], algorithms=["greedy"], out=tmp_path / "r.csv",
                   progress=False, choice=runner.DeviceChoice("cpu", "t"),
                   cluster="tcp://127.0.0.1:9")  # fmt: skip
    assert not (tmp_path / "r.csv").exists()


def test_cluster_without_the_extra_is_one_line(tmp_path, cli):
    blocker = tmp_path / "sitecustomize.py"  # makes `import distributed` fail, as uninstalled
    blocker.write_text("import sys\nsys.modules['distributed'] = None\n")
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    done = cli("run", "--device", "cpu", "--cluster", "local", "--out", str(tmp_path / "r.csv"),
               env={**os.environ, "PYTHONPATH": path})  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: --cluster needs distributed, which does not import (import of distributed "
        "halted; None in sys.modules): pip install 'gcbench[cluster]'"
    ]
    assert not (tmp_path / "r.csv").exists()


def test_merge_command(tmp_path, cli):
    columns = ["graph", "algorithm", "params", "block_size", "rep", "status"]
    a = pd.DataFrame([["g", "greedy", "", "", 0, "ok"]], columns=columns)
    b = pd.DataFrame([["g", "greedy", "", "", 1, "ok"]], columns=columns)
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    done = cli("merge", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--out",
               str(tmp_path / "all.csv"))  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip().endswith("all.csv")
    assert pd.read_csv(tmp_path / "all.csv").rep.tolist() == [0, 1]
    done = cli("merge", str(tmp_path / "a.csv"), str(tmp_path / "a.csv"), "--out",
               str(tmp_path / "again.csv"))  # fmt: skip
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "hold the same repetition" in done.stderr
