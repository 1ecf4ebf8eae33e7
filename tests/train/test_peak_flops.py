"""MFU's denominator: the dense bf16 peak of the GPU torch names. Variants of one chip differ by up to a
quarter (NVIDIA's H100 and H200 datasheets: SXM 989 TFLOP/s, NVL 835, H100 PCIe 756), so the name's
variant decides, not the chip's name alone."""

from __future__ import annotations

import pytest

from app.train.summary import peak_bf16_flops


@pytest.mark.parametrize(("name", "tflops"), [
    ("NVIDIA H100 80GB HBM3", 989),  # SXM, as torch.cuda.get_device_name() says it
    ("NVIDIA H100 PCIe", 756),
    ("NVIDIA H100 NVL", 835),
    ("NVIDIA H200", 989),
    ("NVIDIA H200 NVL", 835),
    ("NVIDIA GH200 480GB", 989),
    ("NVIDIA A100-SXM4-80GB", 312),
    ("NVIDIA A100 80GB PCIe", 312),
])
def test_each_variant_gets_its_own_datasheet_peak(name, tflops):
    assert peak_bf16_flops(name) == tflops * 1e12


def test_an_unknown_gpu_has_no_peak():
    assert peak_bf16_flops("NVIDIA GeForce RTX 4090") is None
