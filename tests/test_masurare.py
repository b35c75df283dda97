"""Testele modulului `masurare`."""

import math
import time

import pytest
import torch

from curs_compilare import masurare


def test_gbps_si_tflops():
    assert masurare.gbps(2e9, 0.5) == pytest.approx(4.0)
    assert masurare.tflops(1e12, 0.25) == pytest.approx(4.0)


def test_masoara_o_functie_cu_durata_cunoscuta():
    m = masurare.masoara(time.sleep, 0.002, timp_minim_s=0.05, pe_gpu=False, eticheta="somn")
    assert 0.0018 < m.mediana_s < 0.006
    assert m.cuantila20_s <= m.mediana_s <= m.cuantila80_s
    assert m.numar_rulari >= 5
    assert m.unealta == "torch.utils.benchmark"
    assert "somn" in str(m) and "mediana" in str(m)


def test_masoara_face_incalzirea_inainte_de_cronometrare():
    apelari = []

    def functie_lenta_la_inceput():
        apelari.append(1)
        time.sleep(0.2 if len(apelari) == 1 else 0.001)

    m = masurare.masoara(functie_lenta_la_inceput, timp_minim_s=0.05, pe_gpu=False)
    assert m.mediana_s < 0.01


def test_timp_prima_apelare_masoara_o_singura_apelare():
    assert 0.045 < masurare.timp_prima_apelare(time.sleep, 0.05, pe_gpu=False) < 0.2


def test_numara_kerneluri_eager_pe_cpu():
    x = torch.randn(1000)
    numar = masurare.numara_kerneluri(lambda t: (t * 2 + 1).relu() * 3, x)
    assert numar.numar == 4
    assert numar.nume["aten::mul"] == 2
    assert "kernel-uri" in str(numar)


def test_plafonul_de_copiere_e_pozitiv_si_numara_citire_plus_scriere():
    plafon = masurare.masoara_plafon_copiere(numar_octeti=2**22, dispozitiv="cpu")
    assert plafon.octeti_copiati == 2**22
    asteptat = 2 * 2**22 / plafon.masuratoare.mediana_s / 1e9
    assert plafon.gbps == pytest.approx(asteptat)
    assert "GB/s" in str(plafon)


@pytest.mark.parametrize(
    "prima, eager, compilat, asteptat",
    [
        (9.0, 3.0, 1.0, 4),  # egalitate exactă
        (10.0, 3.0, 1.0, 5),
        (0.5, 1.0, 0.1, 1),  # prima apelare compilată e deja mai rapidă
        (5.0, 1.0, 1.0, None),  # nu e mai rapid: nu se amortizează
        (5.0, 1.0, 2.0, None),
    ],
)
def test_prag_rentabilitate(prima, eager, compilat, asteptat):
    assert masurare.prag_rentabilitate(prima, eager, compilat) == asteptat


def test_prag_rentabilitate_e_cel_mai_mic_n():
    for prima, eager, compilat in [(20.0, 0.01, 0.004), (3.3, 0.07, 0.02), (1e-3, 1e-4, 9e-5)]:
        n = masurare.prag_rentabilitate(prima, eager, compilat)
        assert prima + (n - 1) * compilat <= n * eager
        assert n == 1 or prima + (n - 2) * compilat > (n - 1) * eager


def test_gpu_simulat_e_asincron():
    gpu = masurare.GPUSimulat(durata_lucrare_s=0.02, durata_lansare_s=0.0, durata_compilare_s=0.0)
    start = time.perf_counter()
    gpu.lanseaza()
    gpu.lanseaza()
    dupa_lansare = time.perf_counter() - start
    gpu.sincronizeaza()
    dupa_sincronizare = time.perf_counter() - start
    assert dupa_lansare < 0.015
    assert dupa_sincronizare >= 0.039
    assert gpu.lansari == 2 and gpu.sincronizari == 1


def test_format_timp():
    assert masurare._format_timp(0.00123) == "1,23 ms"
    assert masurare._format_timp(2.5) == "2,5 s"
    assert masurare._format_timp(4.2e-6) == "4,2 µs"
    assert not math.isnan(masurare._cuantila([1.0, 2.0, 3.0], 0.5))
