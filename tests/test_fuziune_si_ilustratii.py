"""Lanțurile capitolului 03, octeții lor, cronologia kernel-urilor și desenele bucătăriei."""

import os
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest
import torch

from curs_compilare import fuziune, ilustratii
from curs_compilare.grafice import grafic_cronologie
from curs_compilare.masurare import EvenimentKernel, cronologie_kerneluri, nume_scurt_kernel

RADACINA = Path(__file__).resolve().parent.parent


def test_lant_punctual_si_lant_de_operatii_coincid():
    x = torch.randn(1000)
    torch.testing.assert_close(fuziune.lant_de_operatii(fuziune.NUMAR_OPERATII_LANT)(x), fuziune.lant_punctual(x))
    lant = fuziune.lant_de_operatii(6)
    assert lant.sursa.count("x = ") == 6 and lant.__name__ == "lant_6_operatii"
    assert lant.__code__ is not fuziune.lant_de_operatii(6).__code__  # cod propriu, cache Dynamo propriu
    import inspect

    assert inspect.getsourcefile(lant) == fuziune.__file__  # are fișier sursă: Dynamo o urmărește direct
    with pytest.raises(ValueError):
        fuziune.lant_de_operatii(0)


def test_octeti_lant():
    assert fuziune.octeti_lant(1000, 4) == (32_000, 8_000)
    assert fuziune.octeti_lant(10, 1, octeti_pe_element=2) == (40, 40)


def test_masoara_pe_dimensiuni_compileaza_static_fara_limita():
    compilat = torch.compile(fuziune.lant_punctual, dynamic=False)
    dimensiuni = [2**k for k in range(6, 16)]  # 10 dimensiuni > limita implicită de 8
    rezultate = fuziune.masoara_pe_dimensiuni(
        {"eager": fuziune.lant_punctual, "compilat": compilat}, dimensiuni, "cpu", timp_minim_s=0.01
    )
    assert [len(v) for v in rezultate.values()] == [10, 10]
    assert all(m.mediana_s > 0 for v in rezultate.values() for m in v)
    torch._dynamo.reset()


@pytest.mark.parametrize(
    "nume, asteptat",
    [
        ("void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
         "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int)", "Mul"),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, "
         "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<float>)", "add"),
        ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MaxOps<float>, "
         "unsigned int, float, 4, 4> >(at::native::ReduceOp<float>)", "Max"),
        ("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
         "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
         "cunn_SoftMaxForward"),
        ("triton_poi_fused_add_mul_relu_0", "triton_poi_fused_add_mul_relu_0"),
        ("aten::mul", "aten::mul"),
    ],
)
def test_nume_scurt_kernel(nume, asteptat):
    assert nume_scurt_kernel(nume) == asteptat


def test_cronologia_eager_are_un_kernel_pe_operatie_si_graficul_se_deseneaza():
    x = torch.randn(4096)
    eager = cronologie_kerneluri(fuziune.lant_punctual, x)
    assert [e.nume for e in eager] == ["aten::mul", "aten::add", "aten::relu", "aten::mul"]
    assert eager[0].inceput_us == 0
    assert all(b.inceput_us >= a.inceput_us for a, b in zip(eager, eager[1:]))
    compilat = [EvenimentKernel("cpp_fused_add_mul_relu_0", 0.0, 5.0)]
    ax = grafic_cronologie({"eager": eager, "compilat": compilat}, titlu="test")
    etichete = [t.get_text() for t in ax.get_yticklabels()]
    assert "eager\n(4 kernel-uri)" in etichete and "compilat\n(1 kernel)" in etichete


def test_interpretorul_triton_pornit_fara_gpu():
    cod = "import curs_compilare, os; print(os.environ.get('TRITON_INTERPRET'))"
    mediu = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    mediu["CUDA_VISIBLE_DEVICES"] = ""
    iesire = subprocess.run([sys.executable, "-c", cod], env=mediu, capture_output=True, text=True, check=True)
    assert iesire.stdout.strip() == "1"
    mediu["TRITON_INTERPRET"] = "0"  # alegerea ta explicită e respectată
    iesire = subprocess.run([sys.executable, "-c", cod], env=mediu, capture_output=True, text=True, check=True)
    assert iesire.stdout.strip() == "0"


def test_ilustratiile_se_regenereaza(tmp_path):
    scrise = ilustratii.regenereaza(tmp_path)
    assert sorted(p.name for p in scrise) == sorted(ilustratii.ILUSTRATII)
    for cale in scrise:
        assert cale.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        # imaginile din depozit există și au aceleași dimensiuni ca cele proaspăt desenate
        din_depozit = RADACINA / "assets" / "bucataria" / cale.name
        assert din_depozit.exists(), f"lipsește {din_depozit}: rulează make ilustratii"
        assert _dimensiuni_png(din_depozit) == _dimensiuni_png(cale)


def test_varianta_necunoscuta():
    with pytest.raises(ValueError):
        ilustratii.deseneaza_bucataria("cuptor")


def _dimensiuni_png(cale):
    date = Path(cale).read_bytes()
    return int.from_bytes(date[16:20], "big"), int.from_bytes(date[20:24], "big")


def test_grafic_latime_banda_scrie_procentul_din_plafon():
    from curs_compilare.grafice import grafic_latime_banda

    ax = grafic_latime_banda({"eager": 1000.0, "compilat": 4000.0}, plafon=4000.0, titlu="t")
    texte = [t.get_text() for t in ax.texts]
    assert any("1 000 GB/s (25% din plafon)" in t for t in texte)
    assert any("4 000 GB/s (100% din plafon)" in t for t in texte)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["eager", "compilat"]


def test_cronologia_pune_eticheta_langa_bara_ingusta():
    compilat = [EvenimentKernel("triton_poi_fused_add_mul_relu_0", 0.0, 36.0)]
    eager = [EvenimentKernel("Mul", 0.0, 33.0), EvenimentKernel("add", 116.0, 33.0), EvenimentKernel("Mul", 218.0, 33.0)]
    ax = grafic_cronologie({"eager": eager, "compilat": compilat})
    texte = {t.get_text(): t for t in ax.texts}
    assert texte["triton_poi_fused_add_mul_relu_0"].get_ha() == "left"  # nu încape în bară: stă în dreapta ei
    assert texte["add"].get_ha() == "center"
