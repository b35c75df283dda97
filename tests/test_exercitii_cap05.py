"""Verificările capitolului 05 acceptă răspunsurile corecte (în mai multe forme) și resping
greșelile tipice cu explicația potrivită, fără traceback și fără să se blocheze. Pe CPU,
configurațiile exercițiului 1 rulează prin interpretorul Triton, pe matrice mici; ramurile care
compilează și măsoară configurațiile pe un GPU rulează doar cu CUDA (testele `doar_pe_gpu`).

Fiecare diagnostic care numește o greșeală anume e încercat și cu greșeala pe care o numește, și
cu una apropiată, care nu e ea (unde nu trebuie să apară)."""

import math
import sys
import time

import numpy as np
import pytest
import torch

from curs_compilare.capitole import cap05_reglare as reglare
from curs_compilare.amortizare import apel_de_amortizare, cost_total
from curs_compilare.exercitii import cap05
from curs_compilare.exercitii.baza import NESCRIS, generator_aleator
from curs_compilare.mediu import SM_MINIM_GEMM_AUTOTUNE

triton = pytest.importorskip("triton")

PE_GPU = torch.cuda.is_available()
doar_pe_gpu = pytest.mark.skipif(not PE_GPU, reason="cere un GPU CUDA")
doar_pe_cpu = pytest.mark.skipif(PE_GPU, reason="ramura CPU (interpretorul Triton)")


def _cfg(BM, BN, BK, num_warps=4, num_stages=2, **in_plus):
    return triton.Config({"BM": BM, "BN": BN, "BK": BK, **in_plus}, num_warps=num_warps, num_stages=num_stages)


def _respins(rezultat, *fragmente, absente=()):
    assert not rezultat, rezultat.text()
    for fragment in fragmente:
        assert fragment in rezultat.mesaj, rezultat.mesaj
    for fragment in absente:
        assert fragment not in rezultat.mesaj, rezultat.mesaj
    assert "Traceback" not in rezultat.text()
    return rezultat


def _bucla_cu_except_gol(*argumente):
    while True:
        try:
            while True:
                pass
        except:  # noqa: E722 — exact greșeala pe care limita de timp trebuie s-o reziste
            pass


# =============================================================================================
# Exercițiul 1
# =============================================================================================

CONFIGURATII_BUNE = [
    _cfg(32, 32, 16, num_warps=4, num_stages=2),
    _cfg(64, 64, 32, num_warps=4, num_stages=3),
    _cfg(128, 64, 32, num_warps=8, num_stages=3),
]


@doar_pe_cpu
def test_ex1_accepta_configuratii_bune_pe_cpu():
    rezultat = cap05.exercitiul_1(CONFIGURATII_BUNE)
    assert rezultat, rezultat.text()
    assert "pe un GPU" in rezultat.mesaj and "1,5" in rezultat.mesaj
    # alternative corecte: un tuplu, configurația de bază printre altele, o funcție care întoarce lista
    assert cap05.exercitiul_1((reglare.CONFIGURATIE_DE_BAZA, _cfg(64, 32, 16, num_warps=2, num_stages=1)))
    assert cap05.exercitiul_1(lambda: [_cfg(128, 128, 64, num_warps=8, num_stages=3)])


@doar_pe_cpu
def test_ex1_pe_cpu_cere_o_placa_mai_mare_decat_cea_de_baza():
    # ocolirea lecției: doar plăci de mărimea celei de bază
    _respins(
        cap05.exercitiul_1([reglare.CONFIGURATIE_DE_BAZA, _cfg(16, 16, 64, num_warps=2, num_stages=3)]),
        "cel mult 16 × 16",
        "drum la cămară",
    )


@pytest.mark.parametrize(
    "configuratii, fragmente",
    [
        (None, ["None"]),
        ([], ["goală"]),
        (_cfg(64, 64, 32), ["o singură configurație"]),
        ({"BM": 64, "BN": 64, "BK": 32}, ["Trebuia o listă", "dict"]),
        ((c for c in [_cfg(64, 64, 32)]), ["Trebuia o listă", "generator"]),
        ([{"BM": 64, "BN": 64, "BK": 32}], ["Elementul 1", "învelește-l"]),
        ([_cfg(64, 64, 32), 42], ["Elementul 2", "int"]),
        ([triton.Config({"BM": 64, "BN": 64}, num_warps=4)], ["lipsește BK", "exact"]),
        ([triton.Config({"BLOCK_M": 64, "BN": 64, "BK": 32}, num_warps=4)], ["lipsește BM", "în plus BLOCK_M"]),
        ([_cfg(64, 64, 32, GROUP_M=8)], ["în plus GROUP_M"]),
        ([_cfg(64, 64, 8)], ["BK=8", "cel puțin 16"]),
        ([_cfg(48, 64, 32)], ["BM=48", "putere a lui 2"]),
        ([_cfg(64, 512, 32)], ["BN=512", "prea mare"]),
        ([_cfg("64", 64, 32)], ["BM", "întreg Python", "str"]),
        ([_cfg(64.0, 64, 32)], ["BM", "întreg Python", "float"]),
        ([_cfg(np.int64(64), 64, 32)], ["BM", "întreg Python", "int64"]),
        ([_cfg(True, 64, 32)], ["BM", "întreg Python", "bool"]),
        ([_cfg(64, 64, 32), _cfg(64, 64, 32, num_warps=3)], ["configurația 2", "num_warps=3", "putere a lui 2"]),
        ([_cfg(64, 64, 32, num_warps=32)], ["num_warps=32"]),
        ([_cfg(64, 64, 32, num_warps="4")], ["num_warps='4'"]),
        ([_cfg(64, 64, 32, num_stages=0)], ["num_stages=0"]),
        ([_cfg(64, 64, 32, num_stages=2.5)], ["num_stages=2.5"]),
        ([_cfg(64, 64, 32, num_stages=10**9)], ["memorie partajată", "TiB"]),
        (
            [_cfg(64, 64, 32), _cfg(256, 256, 128, num_stages=4)],
            ["Configurația 2", "BM=256", "512 KiB", "memorie partajată", "Micșorează BK sau num_stages"],
        ),
        ([triton.Config({"BM": 64, "BN": 64, "BK": 32}, num_warps=4, num_stages=2, pre_hook=lambda argumente: None)], ["pre_hook"]),
        ([_cfg(64, 64, 32)] * (cap05.CONFIGURATII_MAXIME + 1), [f"{cap05.CONFIGURATII_MAXIME + 1} de configurații", "cel mult"]),
    ],
    ids=lambda v: None if isinstance(v, list) and v and isinstance(v[0], str) else "configuratii",
)
def test_ex1_respinge_greselile_tipice(configuratii, fragmente):
    inceput = time.perf_counter()
    _respins(cap05.exercitiul_1(configuratii), *fragmente)
    assert time.perf_counter() - inceput < 5  # greșelile de formă se văd fără să ruleze vreun kernel


@doar_pe_cpu
def test_ex1_pe_cpu_limita_e_cea_a_unui_gpu_mare_si_pomeneste_t4():
    # 3 × (128·64 + 64·128) × 2 = 96 KiB: încape în 227 KiB
    assert cap05.exercitiul_1([_cfg(128, 128, 64, num_warps=8, num_stages=3)])
    _respins(cap05.exercitiul_1([_cfg(256, 256, 64, num_stages=4)]), "256 KiB", "227 KiB", "T4 doar 64 KiB")


def test_ex1_nescris_exceptie_si_bucla_fara_sfarsit(monkeypatch):
    def configuratii():
        raise NotImplementedError

    rezultat = cap05.exercitiul_1(configuratii)
    assert not rezultat and rezultat.mesaj == NESCRIS

    def cu_eroare():
        return [triton.Config({"BM": 64}, num_warps=4)] + [][1]

    _respins(cap05.exercitiul_1(cu_eroare), "IndexError", "indice", "linia")

    monkeypatch.setattr(cap05, "LIMITA_FUNCTIE_1_S", 0.3)
    inceput = time.perf_counter()
    _respins(cap05.exercitiul_1(lambda: _bucla_cu_except_gol()), "n-a terminat")
    assert time.perf_counter() - inceput < 3


def test_ex1_lipsa_memoriei_partajate_la_compilare_e_explicata(monkeypatch):
    from triton.runtime.errors import OutOfResources

    def lipsa_memorie(*argumente, **argumente_numite):
        raise OutOfResources(262144, 232448, "shared memory")

    monkeypatch.setattr(reglare, "matmul_cu_configuratie", lipsa_memorie)
    _respins(
        cap05.exercitiul_1([_cfg(128, 128, 64)]),
        "n-a putut compila configurația 1",
        "nu încape în memoria partajată",
        "262144",
    )


def test_ex1_alta_eroare_de_compilare_e_explicata(monkeypatch):
    def eroare(*argumente, **argumente_numite):
        raise RuntimeError("ceva s-a stricat\nultima linie a erorii")

    monkeypatch.setattr(reglare, "matmul_cu_configuratie", eroare)
    _respins(cap05.exercitiul_1([_cfg(64, 64, 32)]), "Kernel-ul n-a rulat", "ultima linie a erorii")


def test_ex1_rezultate_gresite_sunt_prinse(monkeypatch):
    """Aproape corect: un singur element greșit, în colțul pe care îl acoperă doar masca."""
    original = reglare.matmul_cu_configuratie

    def gresit(a, b, BM, BN, BK, **rest):
        c = original(a, b, BM, BN, BK, **rest)
        c[-1, -1] += 1.0
        return c

    monkeypatch.setattr(reglare, "matmul_cu_configuratie", gresit)
    _respins(cap05.exercitiul_1([_cfg(64, 64, 32)]), "Valorile diferă", "configurația 1", "Elemente greșite")


@pytest.mark.parametrize(
    "transforma, fragment",
    [
        (lambda c: c.double(), "float64"),
        (lambda c: c[:-1], "Forma rezultatului"),  # un rând lipsă, oricare ar fi forma aleasă
    ],
    ids=["dtype", "forma"],
)
def test_ex1_tipul_si_forma_rezultatului_se_compara_strict(monkeypatch, transforma, fragment):
    original = reglare.matmul_cu_configuratie
    monkeypatch.setattr(reglare, "matmul_cu_configuratie", lambda *a, **k: transforma(original(*a, **k)))
    _respins(cap05.exercitiul_1([_cfg(64, 64, 32)]), fragment, "configurația 1")


def test_ex1_formele_sunt_alese_la_intamplare_si_nu_sunt_multipli_de_placi():
    for pe_gpu in (False, True):
        vazute = set()
        for seminta in range(6):
            (M, N, K), mica = cap05._forme_corectitudine(generator_aleator(seminta), pe_gpu)
            assert M % 16 and N % 16 and K % 16
            assert max(mica[:2]) < 16
            vazute.add((M, N, K))
        assert len(vazute) > 3


def test_ex1_limita_de_timp_la_rularea_configuratiilor(monkeypatch):
    """Compilarea și rularea configurațiilor (interpretorul pe CPU, Triton pe GPU) au o limită."""
    monkeypatch.setattr(cap05, "LIMITA_CORECTITUDINE_S", 0.02)
    monkeypatch.setattr(cap05, "LIMITA_PE_CONFIGURATIE_S", 0.0)
    inceput = time.perf_counter()
    _respins(cap05.exercitiul_1(CONFIGURATII_BUNE), "n-au terminat", "20 ms", "configurațiilor tale")
    assert time.perf_counter() - inceput < 5


@pytest.mark.parametrize(
    "configuratie",
    [_cfg(64.0, 64, 32), _cfg(48, 64, 32)],
    ids=["BM_float", "BM_48"],
)
def test_ex1_erorile_reale_ale_lui_triton_sunt_explicate(monkeypatch, configuratie):
    """Fără validarea dinainte, configurația absurdă ajunge la Triton (interpretorul pe CPU,
    compilatorul pe GPU): eroarea lui devine un mesaj, nu un traceback."""
    monkeypatch.setattr(cap05, "_verifica_parametrii", lambda numar, configuratie: None)
    _respins(cap05.exercitiul_1([configuratie]), "configurația 1", "BM=")


def test_ex1_fara_triton_explica(monkeypatch):
    monkeypatch.setitem(sys.modules, "triton", None)
    _respins(cap05.exercitiul_1([object()]), "triton nu e instalat", "Linux sau Colab")


# --- Exercițiul 1 pe GPU (le rulează coordonatorul pe un H200) --------------------------------

CONFIGURATII_BUNE_GPU = [
    _cfg(64, 64, 32, num_warps=4, num_stages=3),
    _cfg(128, 128, 32, num_warps=4, num_stages=4),
    _cfg(128, 128, 64, num_warps=8, num_stages=3),
    _cfg(128, 256, 64, num_warps=8, num_stages=3),
]


@doar_pe_gpu
def test_ex1_pe_gpu_masoara_si_accepta_configuratii_bune():
    rezultat = cap05.exercitiul_1(CONFIGURATII_BUNE_GPU)
    assert rezultat, rezultat.text()
    assert "TFLOP/s" in rezultat.mesaj and "cuBLAS" in rezultat.mesaj and "2048" in rezultat.mesaj


@doar_pe_gpu
def test_ex1_pe_gpu_accepta_o_alternativa_corecta():
    rezultat = cap05.exercitiul_1(lambda: [_cfg(128, 64, 32, num_warps=4, num_stages=4), _cfg(64, 128, 64, num_warps=4, num_stages=3)])
    assert rezultat, rezultat.text()
    assert "TFLOP/s" in rezultat.mesaj


@doar_pe_gpu
def test_ex1_pe_gpu_respinge_configuratia_de_baza_singura():
    _respins(
        cap05.exercitiul_1([reglare.CONFIGURATIE_DE_BAZA, _cfg(16, 16, 32, num_warps=1, num_stages=1)]),
        "TFLOP/s",
        "cel puțin 1,5",
    )


@doar_pe_gpu
def test_ex1_pe_gpu_limita_memoriei_partajate_e_a_gpu_ului():
    _respins(cap05.exercitiul_1([_cfg(256, 256, 128, num_stages=4)]), "memorie partajată", "GPU-ul tău")


@doar_pe_gpu
def test_ex1_pe_gpu_memoria_partajata_depasita_ajunge_la_triton(monkeypatch):
    """Fără estimarea dinainte, placa prea mare pentru memoria partajată e compilată: Triton
    ridică OutOfResources, iar verificarea o explică."""
    monkeypatch.setattr(cap05, "limita_memorie_partajata", lambda: (10**12, "fără limită"))
    inceput = time.perf_counter()
    _respins(
        cap05.exercitiul_1([_cfg(128, 128, 256, num_warps=8, num_stages=4)]),
        "configurația 1",
        "memoria partajată",
    )
    assert time.perf_counter() - inceput < 120


@doar_pe_gpu
@pytest.mark.parametrize(
    "configuratie, fragment",
    [(_cfg(64, 64, 32, num_warps=3), "num_warps"), (_cfg(64.0, 64, 32), "BM="), (_cfg(48, 64, 32), "BM=48")],
    ids=["num_warps_3", "BM_float", "BM_48"],
)
def test_ex1_pe_gpu_configuratii_absurde_ajung_la_triton(monkeypatch, configuratie, fragment):
    monkeypatch.setattr(cap05, "_verifica_parametrii", lambda numar, configuratie: None)
    _respins(cap05.exercitiul_1([configuratie]), "configurația 1", fragment)


@doar_pe_gpu
def test_ex1_pe_gpu_limita_de_timp_la_masurare(monkeypatch):
    monkeypatch.setattr(cap05, "LIMITA_MASURARE_S", 0.2)
    monkeypatch.setattr(cap05, "LIMITA_PE_CONFIGURATIE_S", 0.0)
    monkeypatch.setattr(cap05, "LIMITA_CORECTITUDINE_S", 300.0)
    inceput = time.perf_counter()
    _respins(cap05.exercitiul_1(CONFIGURATII_BUNE_GPU), "n-au terminat", "Reglarea și măsurarea")
    assert time.perf_counter() - inceput < 120


@doar_pe_gpu
def test_ex1_pe_gpu_dupa_erori_o_lista_buna_trece_din_nou():
    """Erorile de mai sus (OutOfResources, întreruperi) nu lasă GPU-ul sau Triton stricate."""
    rezultat = cap05.exercitiul_1(CONFIGURATII_BUNE_GPU)
    assert rezultat, rezultat.text()


# =============================================================================================
# Exercițiul 2
# =============================================================================================


def pasi_ca_in_sectiunea_3(prima_default_s, pas_default_s, prima_autotune_s, pas_autotune_s):
    """Soluția de referință a cursului: totalul prima + (n − 1) · pas."""
    castig = pas_default_s - pas_autotune_s
    if castig < 0:
        return None
    if castig == 0:
        return 1 if prima_autotune_s <= prima_default_s else None
    return max(1, 1 + math.ceil((prima_autotune_s - prima_default_s) / castig))


def pasi_cu_compilarea(prima_default_s, pas_default_s, prima_autotune_s, pas_autotune_s):
    """Alternativă: costul compilării (primul apel − un pas) + n · pas, același model."""
    compilare_d, compilare_a = prima_default_s - pas_default_s, prima_autotune_s - pas_autotune_s
    castig = pas_default_s - pas_autotune_s
    if castig <= 0:
        return 1 if castig == 0 and prima_autotune_s <= prima_default_s else None
    n = max(1, math.ceil((compilare_a - compilare_d) / castig))
    while n > 1 and compilare_a + (n - 1) * pas_autotune_s <= compilare_d + (n - 1) * pas_default_s:
        n -= 1  # rotunjirea în virgulă mobilă: aceeași inegalitate, verificată direct
    return n


def pasi_cu_bucla(prima_default_s, pas_default_s, prima_autotune_s, pas_autotune_s):
    if pas_autotune_s > pas_default_s or (pas_autotune_s == pas_default_s and prima_autotune_s > prima_default_s):
        return None
    n = 1
    while prima_autotune_s + (n - 1) * pas_autotune_s > prima_default_s + (n - 1) * pas_default_s:
        n += 1
    return n


def pasi_cu_numpy(prima_default_s, pas_default_s, prima_autotune_s, pas_autotune_s):
    castig = np.float64(pas_default_s) - np.float64(pas_autotune_s)
    if castig <= 0:
        return np.int64(1) if castig == 0 and prima_autotune_s <= prima_default_s else None
    return np.int64(max(1, 1 + int(np.ceil((prima_autotune_s - prima_default_s) / castig))))


def pasi_ca_tensor(*argumente):
    r = pasi_ca_in_sectiunea_3(*argumente)
    return None if r is None else torch.tensor(r)


@pytest.mark.parametrize(
    "functie", [pasi_ca_in_sectiunea_3, pasi_cu_compilarea, pasi_cu_bucla, pasi_cu_numpy, pasi_ca_tensor]
)
def test_ex2_accepta_solutii_corecte(functie):
    for _ in range(3):  # alte cazuri la fiecare rulare
        rezultat = cap05.exercitiul_2(functie)
        assert rezultat, rezultat.text()
        assert "se amortizează după" in rezultat.mesaj and "cazuri" in rezultat.mesaj


def test_ex2_referinta_e_modelul_unic():
    for seminta in range(40):
        for caz in cap05._cazuri_2(generator_aleator(seminta)):
            assert caz.asteptat == apel_de_amortizare(*caz.argumente)
            assert pasi_ca_in_sectiunea_3(*caz.argumente) == caz.asteptat, caz


def test_ex2_cazurile_sunt_alese_la_intamplare_si_acopera_toate_felurile():
    felurile = [c.fel for c in cap05._cazuri_2(generator_aleator(1))]
    assert felurile == [
        "tipic", "egalitate", "aproape", "mai_ieftin", "prima_egala", "mai_lent",
        "pasi_egali_scump", "mai_lent_ieftin", "pasi_egali_ieftin",
    ]
    vazute = set()
    for seminta in range(30):
        cazuri = {c.fel: c for c in cap05._cazuri_2(generator_aleator(seminta))}
        vazute.add(cazuri["tipic"].argumente)
        # egalitatea exactă, la bit, la n-ul răspunsului
        egalitate = cazuri["egalitate"]
        n = egalitate.asteptat
        assert cost_total(*egalitate.argumente[2:], n) == cost_total(*egalitate.argumente[:2], n)
        assert egalitate.diferenta(n - 1) > 0
        # rotunjirea la cel mai apropiat întreg greșește cel puțin într-un caz
        x = cap05._x_2(cazuri["tipic"].argumente)
        assert 0.1 < x - math.floor(x) < 0.4 and 0.55 < cap05._x_2(cazuri["aproape"].argumente) < 0.9
        assert [c.asteptat for c in cazuri.values()][3:] == [1, 1, None, None, None, 1]
        assert cazuri["aproape"].asteptat == 2 and 10_000 < cazuri["tipic"].asteptat < 500_000
    assert len(vazute) == 30


def test_ex2_cazurile_se_schimba_de_la_o_rulare_la_alta(monkeypatch):
    """Un răspuns scris pe de rost (răspunsurile unei rulări) nu trece la următoarea."""
    monkeypatch.setenv("CURS_SEMINTA", "11")
    raspunsuri = {c.argumente: c.asteptat for c in cap05._cazuri_2(generator_aleator())}

    def pe_de_rost(*argumente):
        return raspunsuri.get(argumente, 1)

    assert cap05.exercitiul_2(pe_de_rost)  # aceleași cazuri: trece
    monkeypatch.setenv("CURS_SEMINTA", "12")
    _respins(cap05.exercitiul_2(pe_de_rost), "ai întors 1", "trebuia")


def _x(pd1, pd, pa1, pa):
    return (pa1 - pd1) / (pd - pa)


def _formula_schimbata(calcul):
    """Cazurile limită corecte; la cazurile rezolvate cu formula, `calcul(x)`."""

    def functie(pd1, pd, pa1, pa):
        if pd > pa and pa1 > pd1:
            return calcul(_x(pd1, pd, pa1, pa))
        return pasi_ca_in_sectiunea_3(pd1, pd, pa1, pa)

    return functie


_FARA_MINUS_UNU = _formula_schimbata(lambda x: max(1, math.ceil(x)))
_FLOOR = _formula_schimbata(lambda x: 1 + math.floor(x))
_STRICT = _formula_schimbata(lambda x: 2 + math.floor(x))
_PAS_IN_PLUS = _formula_schimbata(lambda x: 2 + math.ceil(x))
_ROUND = _formula_schimbata(lambda x: 1 + round(x))
_PLUS_ZECE = _formula_schimbata(lambda x: 11 + math.ceil(x))
_NEROTUNJIT = _formula_schimbata(lambda x: 1 + x)


def _solutia_veche(cd, pd, ca, pa):  # indiciul vechi: „nu compilează mai mult ⇒ de la primul pas”
    if ca <= cd:
        return 1
    if pa >= pd:
        return None
    return max(1, math.ceil((ca - cd) / (pd - pa)))


def _fara_prima(cd, pd, ca, pa):
    return 1 if pa <= pd else None


def _cu_float(*argumente):
    r = pasi_ca_in_sectiunea_3(*argumente)
    return None if r is None else float(r)


def _zero_in_loc_de_unu(pd1, pd, pa1, pa):
    r = pasi_ca_in_sectiunea_3(pd1, pd, pa1, pa)
    return 0 if r == 1 and pa1 < pd1 else r


def _fara_max(pd1, pd, pa1, pa):
    castig = pd - pa
    if castig <= 0:
        return pasi_ca_in_sectiunea_3(pd1, pd, pa1, pa)
    return 1 + math.ceil((pa1 - pd1) / castig)


def _infinit(*argumente):
    r = pasi_ca_in_sectiunea_3(*argumente)
    return math.inf if r is None else r


def _minus_unu(*argumente):
    r = pasi_ca_in_sectiunea_3(*argumente)
    return -1 if r is None else r


def _imparte_la_zero(pd1, pd, pa1, pa):
    if pa > pd:
        return None
    return max(1, 1 + math.ceil((pa1 - pd1) / (pd - pa)))


def _ordine_gresita(pd1, pa1, pd, pa):  # a grupat argumentele după fel: primele apeluri, apoi pașii
    return pasi_ca_in_sectiunea_3(pd1, pd, pa1, pa)


def _pas_si_prima_inversate(pd1, pd, pa, pa1):  # pasul și primul apel max-autotune inversate
    return pasi_ca_in_sectiunea_3(pd1, pd, pa1, pa)


def _roluri_inversate(pa1, pa, pd1, pd):  # default și max-autotune încurcate
    return pasi_ca_in_sectiunea_3(pd1, pd, pa1, pa)


def _fara_none_cand_e_mai_lent(pd1, pd, pa1, pa):
    castig = pd - pa
    if castig == 0:
        return pasi_ca_in_sectiunea_3(pd1, pd, pa1, pa)
    return max(1, 1 + math.ceil((pa1 - pd1) / castig))


@pytest.mark.parametrize(
    "functie, fragmente, absente",
    [
        # pe de rost, absurd, tip greșit
        (lambda *a: 183334, ["ai întors 183334"], []),
        (lambda *a: None, ["ai întors None", "trebuia 1"], []),
        (lambda *a: "mulți", ["'mulți'", "str"], []),
        (lambda *a: True, ["True", "bool"], []),
        (lambda *a: [1], ["list"], []),
        (lambda *a: torch.ones(2), ["Tensor"], []),
        (lambda *a: float("nan"), ["nan", "împărțirile"], []),
        (lambda *a: 10**40, ["uriaș"], []),
        (lambda *a: -5, ["-5"], []),
        # aproape corect, fiecare cu diagnosticul lui (și fără al celorlalte)
        (_FARA_MINUS_UNU, ["prima + n · pas", "(n − 1)"], ["rotunjirea în jos", "strictă"]),
        (_FLOOR, ["rotunjirea în jos", "math.ceil"], ["prima + n · pas", "strictă"]),
        (_STRICT, ["egalitate exactă", "≤", "strictă"], ["rotunjirea în jos", "un pas în plus"]),
        (_PAS_IN_PLUS, ["cu 1 mai mari", "un pas în plus"], ["strictă", "rotunjirea în jos"]),
        (_ROUND, ["ai întors", "mai mult decât modul implicit", "n-a recuperat"], ["rotunjirea în jos", "prima + n · pas"]),
        (_PLUS_ZECE, ["ai întors", "mai puțin decât modul implicit"], ["un pas în plus", "strictă"]),
        (_NEROTUNJIT, ["n-ai rotunjit", "math.ceil"], []),
        (_cu_float, ["valoarea e bună, dar e un float", "int"], []),
        # cazurile limită
        (_solutia_veche, ["e mai lent, dar primul apel mai ieftin", "trebuia None", "încolo costă mai mult"], []),
        (_fara_prima, ["pași egali, primul apel max-autotune mai scump", "trebuia None", "la nesfârșit"], []),
        (_zero_in_loc_de_unu, ["ai întors 0", "n = 1"], ["negativ"]),
        (_fara_max, ["un număr negativ", "max(1, n)"], ["ai întors 0"]),
        (_infinit, ["inf", "None, nu infinit"], []),
        (_minus_unu, ["-1", "None (nu -1)"], []),
        (_imparte_la_zero, ["împărțit la zero", "pas_autotune_s == pas_default_s"], []),
        (_fara_none_cand_e_mai_lent, ["trebuia None", "mai lent pe pas"], ["împărțit la zero"]),
        # ordinea argumentelor
        # cu pașii și primele apeluri încurcate, răspunsul e același peste tot (1, sau None): nu se
        # poate spune ce ordine a folosit, dar cazul limită greșit e explicat
        (_pas_si_prima_inversate, ["ai întors None", "trebuia 1"], ["altă ordine"]),
        (_ordine_gresita, ["ai întors 1", "trebuia None"], ["altă ordine"]),
        (_roluri_inversate, ["altă ordine", "(prima_autotune_s, pas_autotune_s, prima_default_s, pas_default_s)"], []),
    ],
    ids=lambda v: getattr(v, "__name__", None) if callable(v) else None,
)
def test_ex2_respinge_greselile_tipice(functie, fragmente, absente):
    for _ in range(3):  # pe cazuri diferite, același diagnostic
        _respins(cap05.exercitiul_2(functie), *fragmente, absente=absente)


def test_ex2_ordinea_nu_e_ghicita_cand_toate_raspunsurile_sunt_la_fel():
    _respins(cap05.exercitiul_2(lambda *a: None), "trebuia 1", absente=["altă ordine"])


def test_ex2_ocolirea_lectiei_cu_calculul_din_pachet():
    from curs_compilare import amortizare

    _respins(cap05.exercitiul_2(apel_de_amortizare), "apel_de_amortizare", "scrii tu")

    def pasi_de_rentabilitate(prima_default_s, pas_default_s, prima_autotune_s, pas_autotune_s):
        return amortizare.apel_de_amortizare(prima_default_s, pas_default_s, prima_autotune_s, pas_autotune_s)

    _respins(cap05.exercitiul_2(pasi_de_rentabilitate), "calculul gata făcut")


def test_ex2_nescris_exceptie_si_obiect_neapelabil():
    def pasi_de_rentabilitate(prima_default_s, pas_default_s, prima_autotune_s, pas_autotune_s):
        raise NotImplementedError

    rezultat = cap05.exercitiul_2(pasi_de_rentabilitate)
    assert not rezultat and rezultat.mesaj == NESCRIS
    _respins(cap05.exercitiul_2(lambda cd, pd, ca: 1), "TypeError", "tipic", "pasi_de_rentabilitate(")

    def cu_eroare(pd1, pd, pa1, pa):
        return [pd1][3]

    _respins(cap05.exercitiul_2(cu_eroare), "IndexError", "linia", "return [pd1][3]")
    _respins(cap05.exercitiul_2(42), "funcție")


def test_ex2_bucla_fara_none_e_oprita_cu_explicatia_ei(monkeypatch):
    monkeypatch.setattr(cap05, "LIMITA_APEL_2_S", 0.3)

    def bucla_fara_none(pd1, pd, pa1, pa):
        n = 1
        while pa1 + (n - 1) * pa > pd1 + (n - 1) * pd:
            n += 1
        return n

    inceput = time.perf_counter()
    _respins(cap05.exercitiul_2(bucla_fara_none), "n-a terminat", "nu se oprește", "întoarce None")
    assert time.perf_counter() - inceput < 3


def test_ex2_bucla_cu_except_gol_si_raspunsul_lent_sunt_oprite(monkeypatch):
    monkeypatch.setattr(cap05, "LIMITA_APEL_2_S", 0.3)
    inceput = time.perf_counter()
    _respins(cap05.exercitiul_2(_bucla_cu_except_gol), "n-a terminat", "tipic", absente=["întoarce None"])
    assert time.perf_counter() - inceput < 3

    def lent(*argumente):
        time.sleep(1.0)
        return pasi_ca_in_sectiunea_3(*argumente)

    inceput = time.perf_counter()
    _respins(cap05.exercitiul_2(lent), "n-a terminat")
    assert time.perf_counter() - inceput < 3


def test_ex2_limita_totala(monkeypatch):
    monkeypatch.setattr(cap05, "LIMITA_VERIFICARE_2_S", 0.5)

    def putin_lent(*argumente):
        time.sleep(0.1)
        return pasi_ca_in_sectiunea_3(*argumente)

    inceput = time.perf_counter()
    _respins(cap05.exercitiul_2(putin_lent), "Verificarea a depășit")
    assert time.perf_counter() - inceput < 3


# =============================================================================================
# Exercițiul 3
# =============================================================================================


def plan_cu_tupluri(gpu):
    return {
        "dtype": torch.bfloat16 if gpu.capabilitate >= (8, 0) else torch.float16,
        "sabloane_gemm": gpu.numar_sm >= SM_MINIM_GEMM_AUTOTUNE,
    }


def plan_cu_major(gpu):
    major, _minor = gpu.capabilitate
    plan = {"sabloane_gemm": not gpu.numar_sm < 68, "dtype": torch.float16}
    if major >= 8:
        plan["dtype"] = torch.bfloat16
    return plan


def plan_cu_numpy(gpu):
    return {
        "dtype": [torch.float16, torch.bfloat16][int(gpu.capabilitate[0] >= 8)],
        "sabloane_gemm": np.array(gpu.numar_sm) >= 68,
        "observatie": "cheile în plus sunt ignorate",
    }


def plan_cu_tensori(gpu):
    return {"dtype": torch.half if gpu.capabilitate < (8, 0) else torch.bfloat16,
            "sabloane_gemm": torch.tensor(gpu.numar_sm) >= 68}


@pytest.mark.parametrize("functie", [plan_cu_tupluri, plan_cu_major, plan_cu_numpy, plan_cu_tensori])
def test_ex3_accepta_planuri_corecte(functie):
    for _ in range(3):
        rezultat = cap05.exercitiul_3(functie)
        assert rezultat, rezultat.text()
        assert "pe care nu le-ai văzut" in rezultat.mesaj


def test_ex3_gpu_urile_de_exemplu_si_cele_aleatoare():
    nume = [g.nume for g in cap05.GPU_URI_DE_EXEMPLU]
    assert len(nume) == 9 and "GeForce RTX 3080" in nume and "H200" in nume
    rtx3080 = next(g for g in cap05.GPU_URI_DE_EXEMPLU if g.nume == "GeForce RTX 3080")
    assert rtx3080.numar_sm == SM_MINIM_GEMM_AUTOTUNE == 68
    vazute = set()
    for seminta in range(10):
        aleatoare = cap05._gpu_uri_aleatoare(generator_aleator(seminta))
        assert len(aleatoare) == cap05.GPU_URI_ALEATOARE
        sm = {g.numar_sm for g in aleatoare}
        assert {SM_MINIM_GEMM_AUTOTUNE, SM_MINIM_GEMM_AUTOTUNE - 1} <= sm
        assert any(g.capabilitate == (8, 0) for g in aleatoare)
        vazute.update(aleatoare)
    assert len(vazute) > 30


def _cu(dtype=None, sabloane=None):
    """Un plan corect, cu dtype-ul sau decizia de șabloane înlocuite de o regulă greșită."""

    def plan(gpu):
        corect = plan_cu_tupluri(gpu)
        return {
            "dtype": corect["dtype"] if dtype is None else dtype(gpu),
            "sabloane_gemm": corect["sabloane_gemm"] if sabloane is None else sabloane(gpu),
        }

    return plan


_NUME_CU_SABLOANE = {g.nume for g in cap05.GPU_URI_DE_EXEMPLU if g.numar_sm >= 68}


@pytest.mark.parametrize(
    "functie, fragmente, absente",
    [
        (
            _cu(dtype=lambda g: torch.float32),
            ["float32 în loc de float16 pentru: Tesla T4 (7.5)", "float32 în loc de bfloat16 pentru: A100", "H200", "nucleele tensoriale", "16 biți"],
            ["depinde de"],
        ),
        (_cu(dtype=lambda g: torch.bfloat16), ["Tesla T4", "Tesla V100", "emulează", "float16"], ["A100,", "exact (8, 0)"]),
        (_cu(dtype=lambda g: torch.float16), ["A100 (8.0)", "H100", "65 504", "GradScaler", "Alege bfloat16"], ["Tesla T4", "exact (8, 0)"]),
        (_cu(dtype=lambda g: torch.bfloat16 if g.capabilitate > (8, 0) else torch.float16), ["A100", "exact (8, 0)"], ["depinde de"]),
        (_cu(dtype=lambda g: torch.bfloat16 if g.capabilitate[0] >= 9 else torch.float16), ["A100", "GeForce RTX 3060"], ["exact (8, 0)"]),
        (_cu(dtype=lambda g: torch.bfloat16 if g.memorie_gib >= 24 else torch.float16), ["depinde de memorie"], []),
        (_cu(dtype=lambda g: torch.float64), ["float64", "doar între torch.bfloat16 și torch.float16"], []),
        (
            _cu(sabloane=lambda g: g.numar_sm > 68),
            ["False în loc de True pentru: GeForce RTX 3080 (68 de SM), GeForce RTX 2080 Ti (68 de SM)", "Pragul e inclusiv", "nu > 68"],
            ["după memorie", "nu depinde de numar_sm"],
        ),
        (_cu(sabloane=lambda g: g.numar_sm >= 66), ["True în loc de False", "(67 de SM)", "Regula lui Inductor"], ["Pragul e inclusiv"]),
        (_cu(sabloane=lambda g: g.memorie_gib >= 24), ["după memorie", "nu depinde de numar_sm", "Not enough SMs"], ["Pragul e inclusiv"]),
        (_cu(sabloane=lambda g: g.capabilitate >= (8, 0)), ["Tesla V100", "după capabilitate"], ["după memorie"]),
        (_cu(sabloane=lambda g: g.nume in _NUME_CU_SABLOANE), ["GeForce RTX 2080 Ti", "A10G", "după numele"], []),
        (_cu(sabloane=lambda g: g.numar_sm >= 80), ["GeForce RTX 3080", "Regula lui Inductor"], ["după memorie", "Pragul e inclusiv"]),
    ],
    ids=lambda v: None,
)
def test_ex3_respinge_greselile_tipice(functie, fragmente, absente):
    _respins(cap05.exercitiul_3(functie), "Planul e greșit pentru", *fragmente, absente=absente)


def test_ex3_amandoua_greselile_deodata():
    numar = len(cap05.GPU_URI_DE_EXEMPLU) + len(cap05._GPU_URI_DE_CONTROL) + cap05.GPU_URI_ALEATOARE
    rezultat = cap05.exercitiul_3(lambda g: {"dtype": torch.float32, "sabloane_gemm": g.numar_sm > 68})
    _respins(rezultat, f"toate cele {numar} GPU-uri verificate", "Tipul de date", "Șabloanele GEMM", "nucleele tensoriale", "Pragul e inclusiv")


@pytest.mark.parametrize(
    "functie, fragmente",
    [
        (lambda g: None, ["None", "return"]),
        (lambda g: (torch.bfloat16, True), ["dicționar", "tuple"]),
        (lambda g: {"dtype": torch.float16}, ["nu are cheia", "'sabloane_gemm'"]),
        (lambda g: {"tip": torch.float16, "sabloane": True}, ["nu are cheile", "'tip'"]),
        (lambda g: {"dtype": "bfloat16", "sabloane_gemm": True}, ["textul 'bfloat16'", "torch.bfloat16"]),
        (lambda g: {"dtype": torch.float16, "sabloane_gemm": 1}, ["True sau False", "int"]),
        (lambda g: {"dtype": torch.float16, "sabloane_gemm": "da"}, ["True sau False"]),
        (lambda g: {"dtype": torch.float16, "sabloane_gemm": torch.tensor([True, False])}, ["True sau False", "Tensor"]),
        (lambda g: {"dtype": np.float16, "sabloane_gemm": True}, ["'dtype' e type", "torch.bfloat16"]),
        (lambda g: {"dtype": g.tip, "sabloane_gemm": True}, ["AttributeError", "Tesla T4", "linia"]),
    ],
    ids=lambda v: None,
)
def test_ex3_respinge_raspunsuri_malformate(functie, fragmente):
    _respins(cap05.exercitiul_3(functie), *fragmente)


def test_ex3_regula_dupa_nume_cade_pe_gpu_urile_nevazute():
    planuri = {g.nume: plan_cu_tupluri(g) for g in cap05.GPU_URI_DE_EXEMPLU}
    _respins(cap05.exercitiul_3(lambda g: planuri[g.nume]), "KeyError", "nu e în GPU_URI_DE_EXEMPLU", "numar_sm")
    # chiar și cu GPU-urile de control ale verificării citite din modul, cele aleatoare îl prind
    toate = {g.nume: plan_cu_tupluri(g) for g in cap05.GPU_URI_DE_EXEMPLU + cap05._GPU_URI_DE_CONTROL}
    _respins(cap05.exercitiul_3(lambda g: toate[g.nume]), "KeyError", "GPU de test")
    _respins(cap05.exercitiul_3(lambda g: toate.get(g.nume, {"dtype": torch.bfloat16, "sabloane_gemm": True})), "GPU de test")


def test_ex3_ocolirea_lectiei_cu_referinta_verificarii():
    def plan_pentru(gpu):
        tip, sabloane = cap05._plan_corect(gpu)
        return {"dtype": tip, "sabloane_gemm": sabloane}

    _respins(cap05.exercitiul_3(plan_pentru), "_plan_corect", "scrii tu")


def test_ex3_nescris():
    def plan_pentru(gpu):
        raise NotImplementedError

    rezultat = cap05.exercitiul_3(plan_pentru)
    assert not rezultat and rezultat.mesaj == NESCRIS


def test_ex3_bucla_fara_sfarsit_si_raspunsul_lent(monkeypatch):
    monkeypatch.setattr(cap05, "LIMITA_APEL_3_S", 0.3)
    inceput = time.perf_counter()
    _respins(cap05.exercitiul_3(_bucla_cu_except_gol), "n-a terminat", "Tesla T4")
    assert time.perf_counter() - inceput < 3

    # răspuns greșit și lent: diagnosticul (cu zeci de apeluri) nu înmulțește timpul la nesfârșit
    monkeypatch.setattr(cap05, "LIMITA_VERIFICARE_3_S", 1.0)

    def lent_si_gresit(gpu):
        time.sleep(0.05)
        return {"dtype": torch.float16, "sabloane_gemm": gpu.memorie_gib >= 24}

    inceput = time.perf_counter()
    _respins(cap05.exercitiul_3(lent_si_gresit), "Verificarea a depășit")
    assert time.perf_counter() - inceput < 3


def test_ex3_diagnosticul_se_opreste_la_prima_dependenta_gasita():
    apeluri = []

    def dupa_memorie(gpu):
        apeluri.append(gpu)
        return {"dtype": torch.bfloat16 if gpu.memorie_gib >= 24 else torch.float16,
                "sabloane_gemm": gpu.memorie_gib >= 24}

    _respins(cap05.exercitiul_3(dupa_memorie), "depinde de memorie", "după memorie")
    assert len(apeluri) < 50, len(apeluri)
