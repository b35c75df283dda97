"""Uneltele capitolului 05 care țin contabilitatea în afara celulelor: tabelele și graficele
reglării, ale modurilor și ale proceselor noi și cifrele înregistrate pentru raportul de
referință (aceleași chei, unități și descrieri ca atunci când erau scrise în celule)."""


import matplotlib

matplotlib.use("Agg")

import pytest
import torch

from curs_compilare import cifre
from curs_compilare.capitole import cap05_cache as cache_compilare
from curs_compilare.capitole import cap05_reglare as reglare
from curs_compilare.capitole.cap05_cache import PrimulApel
from curs_compilare.masurare import Masuratoare
from curs_compilare.masurare_compilare import Compilari


def _masuratoare(secunde, runde=()):
    return Masuratoare(secunde, 0.9 * secunde, 1.1 * secunde, 100, "test", mediane_runde=tuple(runde))


DEBITE_CONFIGURATII = {"BM=128, BN=128, BK=32, num_warps=4, num_stages=3": 6.0e14,
                       "BM=64, BN=64, BK=32, num_warps=4, num_stages=3": 2.0e14,
                       "BM=16, BN=16, BK=16, num_warps=1, num_stages=1": 3.0e13}


def test_tabelul_configuratiilor_are_un_rand_pe_configuratie():
    randuri = reglare.tabel_configuratii(DEBITE_CONFIGURATII).splitlines()
    assert len(randuri) == 3
    assert randuri[0].startswith("  BM=128, BN=128") and randuri[0].endswith("600 TFLOP/s")
    assert randuri[2].startswith("  BM=16, BN=16") and randuri[2].endswith("30 TFLOP/s")
    assert reglare.tabel_configuratii({}) == ""


def test_graficul_configuratiilor_alege_unitatea():
    ax = reglare.grafic_configuratii(DEBITE_CONFIGURATII, 4096, torch.float16)
    assert ax.get_title() == "Produs de matrice 4096³ (float16): fiecare configurație"
    assert "TFLOP/s" in ax.get_xlabel()
    assert sorted(bara.get_width() for bara in ax.patches) == pytest.approx([30.0, 200.0, 600.0])


def test_tabelul_modurilor_pune_primul_apel_doar_la_modurile_compilate():
    comparatie = {"eager": _masuratoare(2e-3), "default": _masuratoare(1e-3)}
    compilari = Compilari(timpi={"default": _masuratoare(20.0, (19.0, 21.0))}, functii={}, apelari_urmatoare={})
    debite = {"eager": (250.0, 240.0, 260.0), "default": (500.0, 480.0, 520.0)}
    randuri = reglare.tabel_moduri(comparatie, compilari, debite, 800.0, "TFLOP/s").splitlines()
    assert randuri[0].split() == ["mod", "primul", "apel", "pe", "apel", "TFLOP/s", "din", "vârf"]
    assert randuri[1].split() == ["eager", "—", "2", "ms", "250", "31%"]
    assert randuri[2].split() == ["default", "20", "s", "(19", "s–21", "s)", "1", "ms", "500", "62%"]


def test_graficul_modurilor_are_intervalele_si_varful():
    debite = {"eager": (250.0, 240.0, 260.0), "default": (500.0, 480.0, 520.0)}
    ax = reglare.grafic_debite_moduri(debite, 800.0, "TFLOP/s", 8192, torch.bfloat16)
    assert ax.get_title() == "relu(a @ b + bias), 8192³, bfloat16"
    assert sorted(bara.get_width() for bara in ax.patches) == [250.0, 500.0]
    assert any("vârful torch.mm măsurat" in (l.get_label() or "") for l in ax.get_lines())


def test_tabelul_proceselor_arata_doar_ce_s_a_masurat():
    procese = {
        "rece": PrimulApel(pas_s=12.0, proces_s=20.0, matmul_s=8.0, octeti_artefacte=3 * 2**20),
        "cald": PrimulApel(pas_s=3.0, proces_s=6.0, matmul_s=0.5),
        "artefacte": PrimulApel(pas_s=3.5, proces_s=7.0, incarcare_s=0.25),
    }
    randuri = cache_compilare.tabel_procese(procese).splitlines()
    assert randuri[0].startswith("rece       pasul de antrenare:") and "artefacte salvate: 3 MiB" in randuri[0]
    assert "produsul reglat:" in randuri[1] and "încărcarea artefactelor" not in randuri[1]
    assert "încărcarea artefactelor:" in randuri[2] and "produsul reglat" not in randuri[2]
    assert all(r.endswith(")") and "(tot procesul: " in r for r in randuri)
    assert cifre.probleme_de_format("\n".join(randuri)) == []


@pytest.mark.parametrize("latura_cache, serii", [(None, 1), (4096, 2)])
def test_graficul_proceselor_centreaza_o_singura_serie(latura_cache, serii):
    procese = {"rece": PrimulApel(pas_s=12.0, proces_s=20.0, matmul_s=8.0),
               "cald": PrimulApel(pas_s=3.0, proces_s=6.0, matmul_s=0.5)}
    ax = cache_compilare.grafic_procese(procese, latura_cache)
    assert len(ax.patches) == 2 * serii
    centre = [bara.get_x() + bara.get_width() / 2 for bara in ax.patches]
    if serii == 1:
        assert centre == pytest.approx([0.0, 1.0])
    else:
        assert centre == pytest.approx([-0.2, 0.8, 0.2, 1.2])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["rece", "cald"]


def test_inregistrarile_au_cheile_unitatile_si_descrierile_capitolului(cifre_notate):
    compilari = Compilari(timpi={"default": _masuratoare(20.0), "max-autotune": _masuratoare(90.0)}, functii={},
                          apelari_urmatoare={})
    procese = {"rece": PrimulApel(pas_s=12.0, proces_s=20.0, matmul_s=8.0), "cald": PrimulApel(pas_s=3.0, proces_s=6.0, matmul_s=0.5)}
    rezultate = [
        reglare.inregistreaza_configuratiile(DEBITE_CONFIGURATII, 4096),
        reglare.inregistreaza_modurile(7.5e14, {"eager": (5e14, 4.9e14, 5.1e14), "default": (7e14, 6.9e14, 7.1e14)},
                                       compilari, ["default", "max-autotune"], 8192, torch.bfloat16),
        cache_compilare.inregistreaza_procesele(procese),
    ]
    assert rezultate == [None] * len(rezultate)
    scrise = {c["cheie"]: c for c in cifre_notate()}
    assert {k: (pytest.approx(c["valoare"]), c["unitate"], c["descriere"]) for k, c in scrise.items()} == {
        "05.triton_cea_mai_buna_tflops": (600.0, "TFLOP/s", "kernel_matmul reglat, cea mai bună configurație, 4096³ float16"),
        "05.triton_cea_mai_slaba_tflops": (30.0, "TFLOP/s", "kernel_matmul, cea mai slabă configurație, 4096³ float16"),
        "05.varf_mm_tflops": (750.0, "TFLOP/s", "vârful măsurat, torch.mm 8192³ bfloat16"),
        "05.epilog_eager_tflops": (500.0, "TFLOP/s", "relu(a @ b + bias) 8192³, eager"),
        "05.epilog_default_tflops": (700.0, "TFLOP/s", "relu(a @ b + bias) 8192³, default"),
        "05.compilare_default_s": (20.0, "s", "primul apel (compilare, cache gol), default"),
        "05.compilare_max-autotune_s": (90.0, "s", "primul apel (compilare, cache gol), max-autotune"),
        "05.cache_rece_pas_s": (12.0, "s", "primul pas de antrenare (6 straturi), cache rece"),
        "05.cache_rece_matmul_s": (8.0, "s", "primul apel al produsului cu max-autotune, cache rece"),
        "05.cache_cald_pas_s": (3.0, "s", "primul pas de antrenare (6 straturi), cache cald"),
        "05.cache_cald_matmul_s": (0.5, "s", "primul apel al produsului cu max-autotune, cache cald"),
    }
    assert scrise["05.epilog_default_tflops"]["interval"] == [pytest.approx(690.0), pytest.approx(710.0)]
    assert all(scrise[f"05.cache_{p}_{ce}_s"]["depinde_de_procesor"] for p in procese for ce in ("pas", "matmul"))
