"""The GPU's state between repetitions, read through NVML (``nvidia-ml-py``, installed with
the ``cuda12``/``cuda13`` extras): its SM clock, the reasons it slows itself, and the other
processes computing on it (docs/statistics.md).

Each read is one NVML call of microseconds, made outside every timed region. Where NVML
cannot be loaded (the package missing, a driver without it), :func:`open_gpu` returns None
and the rows leave those columns empty.
"""

from __future__ import annotations

import os
from typing import Any

# NVML's clock-event reasons that slow the GPU (nvmlClocksEventReason*): the idle state, an
# applications-clock setting, a display clock and sync boost are not slowdowns.
SLOWDOWNS: dict[int, str] = {
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x20: "sw_thermal",
    0x40: "hw_thermal",
    0x80: "hw_power_brake",
}


def _bus_id(text: str) -> tuple[int, int, int, int]:
    """(domain, bus, device, function) of a PCI id written "0000:17:00.0" or
    "00000000:17:00.0" (CUDA and NVML pad the domain differently)."""
    domain, bus, rest = text.strip().lower().split(":")
    device, function = rest.split(".")
    return int(domain, 16), int(bus, 16), int(device, 16), int(function, 16)


class GpuState:
    """NVML's view of one GPU, found by the PCI bus id CUDA reports for it."""

    def __init__(self, nvml: Any, handle: Any) -> None:
        self._nvml = nvml
        self._handle = handle
        self.target_mhz = self._target()

    def _target(self) -> int | None:
        """The SM clock a steady, loaded GPU runs at: its applications clock; None where NVML
        does not say (the maximum is no stand-in: a card may never reach it, and the warm-up
        would then wait out its bound on every visit)."""
        nvml = self._nvml
        try:
            mhz = int(nvml.nvmlDeviceGetApplicationsClock(self._handle, nvml.NVML_CLOCK_SM))
        except nvml.NVMLError:
            return None
        return mhz if mhz > 0 else None

    def sm_mhz(self) -> int | None:
        """The SM clock now."""
        try:
            return int(self._nvml.nvmlDeviceGetClockInfo(self._handle, self._nvml.NVML_CLOCK_SM))
        except self._nvml.NVMLError:
            return None

    def throttle(self) -> str:
        """The slowdowns in force now (:data:`SLOWDOWNS` names, ";"-joined), "" for none."""
        read = getattr(
            self._nvml,
            "nvmlDeviceGetCurrentClocksEventReasons",
            getattr(self._nvml, "nvmlDeviceGetCurrentClocksThrottleReasons", None),
        )
        try:
            mask = int(read(self._handle)) if read is not None else 0
        except self._nvml.NVMLError:
            return ""
        return ";".join(name for bit, name in SLOWDOWNS.items() if mask & bit)

    def others(self) -> int | None:
        """How many other processes compute on this GPU now; None where NVML does not list
        this process among them (another PID namespace: a container), so it cannot tell."""
        try:
            listed = {p.pid for p in self._nvml.nvmlDeviceGetComputeRunningProcesses(self._handle)}
        except self._nvml.NVMLError:
            return None
        if os.getpid() not in listed:
            return None
        return len(listed) - 1


def open_gpu(pci_bus_id: str) -> GpuState | None:
    """The NVML view of the GPU at ``pci_bus_id``; None where NVML is not usable."""
    try:
        import pynvml as nvml

        nvml.nvmlInit()
    except Exception:  # the package missing, or no NVML library behind it
        return None
    try:
        wanted = _bus_id(pci_bus_id)
        for index in range(nvml.nvmlDeviceGetCount()):
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
            info = nvml.nvmlDeviceGetPciInfo(handle)
            bus = info.busId.decode() if isinstance(info.busId, bytes) else info.busId
            if _bus_id(bus) == wanted:
                return GpuState(nvml, handle)
    except (nvml.NVMLError, ValueError):
        return None
    return None
