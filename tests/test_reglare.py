"""Kernel-ul de produs de matrice al capitolului 05 și reglarea lui automată: rezultate egale cu
torch.matmul, pe CPU prin interpretorul Triton (dimensiuni mici, impare), iar pe GPU în float16."""

import importlib
import sys

import pytest
import torch

import curs_compilare
import curs_compilare.capitole
from curs_compilare.capitole import cap05_reglare as reglare

triton = pytest.importorskip("triton")

PE_GPU = torch.cuda.is_available()
DISPOZITIV = "cuda" if PE_GPU else "cpu"
# pe CPU: float32 prin interpretor (NumPy, exact); pe GPU: float16, acumulat în float32
TIP = torch.float16 if PE_GPU else torch.float32
TOLERANTA = dict(rtol=1e-2, atol=1e-2) if PE_GPU else dict(rtol=1e-4, atol=1e-4)


def _matrice(M, N, K, seed=0):
    generator = torch.Generator().manual_seed(seed)
    a = torch.randn(M, K, generator=generator).to(DISPOZITIV, TIP)
    b = torch.randn(K, N, generator=generator).to(DISPOZITIV, TIP)
    return a, b, (a.float() @ b.float()).to(TIP)


@pytest.mark.parametrize(
    "BM, BN, BK, num_warps, num_stages",
    [(16, 16, 16, 1, 1), (32, 16, 16, 2, 2), (16, 64, 32, 4, 3), (64, 32, 16, 4, 2)],
)
def test_configuratie_fixa_da_acelasi_rezultat_ca_torch_matmul(BM, BN, BK, num_warps, num_stages):
    a, b, asteptat = _matrice(37, 50, 29)  # M, N, K: niciunul multiplu de plăci
    c = reglare.matmul_cu_configuratie(a, b, BM, BN, BK, num_warps=num_warps, num_stages=num_stages)
    assert c.shape == (37, 50) and c.dtype == TIP and c.device.type == DISPOZITIV
    torch.testing.assert_close(c, asteptat, **TOLERANTA)


def test_dimensiuni_mai_mici_decat_placa_si_intrari_necontigue():
    a, b, asteptat = _matrice(3, 5, 7, seed=1)
    torch.testing.assert_close(reglare.matmul_cu_configuratie(a, b, 32, 32, 16), asteptat, **TOLERANTA)
    # B transpus (necontiguu): funcția îl face contiguu înainte de lansare
    bt = b.t().contiguous().t()
    assert not bt.is_contiguous()
    torch.testing.assert_close(reglare.matmul_cu_configuratie(a, bt, 16, 16, 16), asteptat, **TOLERANTA)


def test_reglarea_automata_cu_doua_configuratii():
    configuratii = [
        reglare.CONFIGURATIE_DE_BAZA,
        triton.Config({"BM": 32, "BN": 32, "BK": 16}, num_warps=4, num_stages=2),
    ]
    f = reglare.matmul_reglat(configuratii)
    assert f.configuratia_aleasa is None and f.timpi() == []
    assert isinstance(f.reglator, triton.runtime.autotuner.Autotuner)
    a, b, asteptat = _matrice(37, 50, 29, seed=2)
    torch.testing.assert_close(f(a, b), asteptat, **TOLERANTA)
    assert f.configuratia_aleasa in configuratii
    if not f.doar_prima:
        timpi = f.timpi()
        assert [c for c, _ in timpi] and {c for c, _ in timpi} == set(configuratii)
        assert all(t > 0 for _, t in timpi)
        assert timpi[0][1] <= timpi[-1][1]
        assert timpi[0][0] == f.configuratia_aleasa
    # a doua apelare cu aceleași dimensiuni folosește configurația din cache
    torch.testing.assert_close(f(a, b), asteptat, **TOLERANTA)
    a2, b2, asteptat2 = _matrice(20, 33, 17, seed=3)
    torch.testing.assert_close(f(a2, b2), asteptat2, **TOLERANTA)
    assert "2 configurații" in repr(f)


def test_o_singura_configuratie_nu_cronometreaza():
    f = reglare.matmul_reglat([triton.Config({"BM": 32, "BN": 32, "BK": 32}, num_warps=4, num_stages=2)])
    a, b, asteptat = _matrice(33, 18, 40, seed=4)
    torch.testing.assert_close(f(a, b), asteptat, **TOLERANTA)
    assert f.timpi() == []
    assert reglare.descrie_configuratie(f.configuratia_aleasa) == "BM=32, BN=32, BK=32, num_warps=4, num_stages=2"


def test_configuratia_de_baza_si_flops():
    baza = reglare.CONFIGURATIE_DE_BAZA
    assert baza.kwargs == {"BM": 16, "BN": 16, "BK": 16}
    assert baza.num_warps == 1 and baza.num_stages == 1
    assert reglare.flops_matmul(2048, 2048, 2048) == 2 * 2048**3
    assert reglare.flops_matmul(3, 5, 7) == 210


def test_pe_cpu_ruleaza_prin_interpretor():
    assert reglare.pe_interpretor() == (not PE_GPU)


def test_intrari_gresite_au_mesaje_in_romana():
    a, b, _ = _matrice(8, 8, 8)
    with pytest.raises(ValueError, match="numărul de coloane"):
        reglare.matmul_cu_configuratie(a, b[:5], 16, 16, 16)
    with pytest.raises(ValueError, match="2 dimensiuni"):
        reglare.matmul_cu_configuratie(a[0], b, 16, 16, 16)
    with pytest.raises(TypeError, match="același tip"):
        reglare.matmul_cu_configuratie(a, b.double(), 16, 16, 16)
    with pytest.raises(ValueError, match="cel puțin o configurație"):
        reglare.matmul_reglat([])


@pytest.mark.skipif(PE_GPU, reason="pe GPU, kernel-ul nu rulează prin interpretor")
def test_pe_cpu_fara_interpretor_explica(monkeypatch):
    monkeypatch.setattr(reglare, "pe_interpretor", lambda: False)
    a, b, _ = _matrice(8, 8, 8)
    with pytest.raises(RuntimeError, match="TRITON_INTERPRET=1"):
        reglare.matmul_cu_configuratie(a, b, 16, 16, 16)


def test_fara_triton_modulul_se_importa_si_explica_la_folosire(monkeypatch):
    monkeypatch.setattr(curs_compilare.capitole, "cap05_reglare", reglare)  # restaurat la final
    monkeypatch.delitem(sys.modules, "curs_compilare.capitole.cap05_reglare")
    monkeypatch.setitem(sys.modules, "triton", None)
    monkeypatch.setitem(sys.modules, "triton.language", None)
    fara_triton = importlib.import_module("curs_compilare.capitole.cap05_reglare")
    try:
        assert fara_triton is not reglare
        assert not fara_triton.ARE_TRITON and fara_triton.CONFIGURATIE_DE_BAZA is None
        assert "tl.dot" in importlib.import_module("inspect").getsource(fara_triton.kernel_matmul.fn)
        a = torch.ones(4, 4)
        with pytest.raises(ModuleNotFoundError, match="triton nu e instalat"):
            fara_triton.matmul_cu_configuratie(a, a, 16, 16, 16)
        with pytest.raises(ModuleNotFoundError, match="Linux sau Colab"):
            fara_triton.matmul_reglat([object()])
        with pytest.raises(ModuleNotFoundError, match="triton nu e instalat"):
            fara_triton.kernel_matmul[(1, 1)]
    finally:
        sys.modules["curs_compilare.capitole.cap05_reglare"] = reglare


@pytest.mark.skipif(not PE_GPU, reason="cere un GPU CUDA")
def test_pe_gpu_reglarea_alege_o_placa_mare_si_bate_configuratia_de_baza():
    from triton.testing import do_bench

    configuratii = [
        reglare.CONFIGURATIE_DE_BAZA,
        triton.Config({"BM": 128, "BN": 128, "BK": 32}, num_warps=4, num_stages=3),
        triton.Config({"BM": 128, "BN": 128, "BK": 64}, num_warps=8, num_stages=3),
    ]
    f = reglare.matmul_reglat(configuratii)
    a, b, _ = _matrice(1024, 1024, 1024, seed=5)
    torch.testing.assert_close(f(a, b), a @ b, rtol=1e-2, atol=5e-2)
    assert f.configuratia_aleasa.kwargs["BM"] == 128
    assert len(f.timpi()) == 3
    baza = reglare.CONFIGURATIE_DE_BAZA
    ms_baza = do_bench(lambda: reglare.matmul_cu_configuratie(a, b, 16, 16, 16, num_warps=1, num_stages=1))
    ms_reglat = do_bench(lambda: f(a, b))
    assert ms_reglat * 1.5 < ms_baza, (ms_reglat, ms_baza, baza)


def test_tabel_reglare_rescrie_timpii_cu_virgula():
    from curs_compilare import cifre

    linii = [
        "AUTOTUNE mm(8192x8192, 8192x8192)",
        "strides: [8192, 1], [8192, 1]",
        "dtypes: torch.bfloat16, torch.bfloat16",
        "  mm 1.3924 ms 100.0% ",
        "  triton_mm_17 1.5693 ms 88.7% ACC_TYPE='tl.float32', BLOCK_K=64, BLOCK_M=128",
        "  triton_mm_16 1.7770 ms 78.4% ACC_TYPE='tl.float32', BLOCK_K=32, BLOCK_M=128",
        "SingleProcess AUTOTUNE benchmarking takes 0.5 seconds",
    ]
    tabel = reglare.tabel_reglare(linii, cel_mult=2)
    assert tabel[0] == "AUTOTUNE mm(8192x8192, 8192x8192)"
    assert len(tabel) == 5
    assert "1,39 ms" in tabel[3] and "100,0%" in tabel[3]
    assert "1,57 ms" in tabel[4] and "88,7%" in tabel[4] and "BLOCK_K=64" in tabel[4]
    assert cifre.probleme_de_format("\n".join(tabel)) == []


@pytest.mark.parametrize("profil, repetari", [("rapid", 1), ("complet", 2)])
def test_compilarile_pe_moduri_se_repeta_o_data_in_profilul_rapid(monkeypatch, profil, repetari):
    """Fiecare compilare cu max-autotune reglează de la zero: în profilul rapid, unde cifrele nu
    spun nimic, fiecare mod se compilează o singură dată; altfel, de două ori (ordine alternată)."""
    from curs_compilare import masurare_compilare

    cerute = []
    monkeypatch.setenv("CURS_PROFIL", profil)
    monkeypatch.setattr(masurare_compilare, "compara_compilari", lambda variante, *a, repetari: cerute.append(repetari))
    x = torch.randn(4, 4)
    reglare.compilari_pe_moduri(x, x, x[0], ["default"])
    reglare.compilari_pe_moduri(x, x, x[0], ["default"], repetari=3)
    assert cerute == [repetari, 3]
