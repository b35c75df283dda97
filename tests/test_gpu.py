"""Ramurile GPU ale pachetului. Pe o mașină fără GPU sunt sărite; pe GPU rulează toate."""

import pytest
import torch

from curs_compilare import masurare, mediu

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="necesită un GPU CUDA")


def test_mediul_descrie_gpu_ul():
    m = mediu.detecteaza_mediul()
    assert m.are_gpu and m.numar_sm > 0 and m.capabilitate[0] >= 7
    assert m.bf16_nativ == (m.capabilitate >= (8, 0))
    assert m.gemm_autotune_posibil == (m.numar_sm >= mediu.SM_MINIM_GEMM_AUTOTUNE)
    assert m.nume_gpu in m.rezumat()


def test_masoara_pe_gpu_foloseste_do_bench_pentru_un_apel_limitat_de_gpu():
    x = torch.randn(2**26, device="cuda")
    m = masurare.masoara(torch.mul, x, 2.0)
    assert m.ceas == "gpu" and "do_bench" in m.unealta
    assert m.numar_rulari >= 10 and 0 < m.mediana_s < 0.01


def test_un_apel_mic_e_limitat_de_procesor_si_se_masoara_cu_ceasul_de_perete():
    x = torch.randn(256, device="cuda")
    c = masurare.compara({"sin": torch.sin, "lant": lambda t: (t * 2 + 1).relu() * 3}, x)
    assert c.ceas == "perete" and "limitat" in c.motiv_ceas
    assert c["sin"].depinde_de_procesor


def test_numara_kerneluri_pe_gpu_eager_si_compilat():
    x = torch.randn(2**20, device="cuda")

    def lant(t):
        return (t * 2 + 1).relu() * 3

    assert masurare.numara_kerneluri(lant, x).numar == 4
    compilat = masurare.numara_kerneluri(torch.compile(lant), x)
    assert compilat.numar == 1, compilat


def test_plafonul_pe_gpu_seamana_cu_clone_masurat_de_do_bench():
    from triton.testing import do_bench

    plafon = masurare.masoara_plafon_copiere(numar_octeti=2**30)
    x = torch.empty(2**28, device="cuda")
    gbps_clone = masurare.gbps(2 * 2**30, do_bench(lambda: x.clone(), return_mode="median") / 1e3)
    assert abs(plafon.gbps / gbps_clone - 1) < 0.10
