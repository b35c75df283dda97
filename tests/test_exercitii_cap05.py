"""Verificările capitolului 05 acceptă răspunsurile corecte (în mai multe forme) și resping
greșelile tipice cu explicația potrivită. Pe CPU, configurațiile rulează prin interpretorul
Triton, pe matrice mici; ramurile care măsoară viteza rulează doar pe un GPU."""

import math
import sys

import numpy as np
import pytest
import torch

from curs_compilare import reglare
from curs_compilare.exercitii import cap05
from curs_compilare.exercitii.baza import NESCRIS
from curs_compilare.mediu import SM_MINIM_GEMM_AUTOTUNE

triton = pytest.importorskip("triton")

PE_GPU = torch.cuda.is_available()
doar_pe_gpu = pytest.mark.skipif(not PE_GPU, reason="cere un GPU CUDA")
doar_pe_cpu = pytest.mark.skipif(PE_GPU, reason="ramura CPU (interpretorul Triton)")


def _cfg(BM, BN, BK, num_warps=4, num_stages=2, **in_plus):
    return triton.Config({"BM": BM, "BN": BN, "BK": BK, **in_plus}, num_warps=num_warps, num_stages=num_stages)


def _respins(rezultat, *fragmente):
    assert not rezultat, rezultat.text()
    for fragment in fragmente:
        assert fragment in rezultat.mesaj, rezultat.mesaj
    assert "Traceback" not in rezultat.text()


# --- Exercițiul 1 -----------------------------------------------------------------------------

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
    # un tuplu, configurația de bază printre altele, o funcție care întoarce lista
    assert cap05.exercitiul_1((reglare.CONFIGURATIE_DE_BAZA, _cfg(64, 32, 16, num_warps=2, num_stages=1)))
    assert cap05.exercitiul_1(lambda: [_cfg(128, 128, 64, num_warps=8, num_stages=3)])


@doar_pe_cpu
def test_ex1_pe_cpu_cere_o_placa_mai_mare_decat_cea_de_baza():
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
        ([{"BM": 64, "BN": 64, "BK": 32}], ["Elementul 1", "învelește-l"]),
        ([_cfg(64, 64, 32), 42], ["Elementul 2", "int"]),
        ([triton.Config({"BM": 64, "BN": 64}, num_warps=4)], ["lipsește BK", "exact"]),
        ([triton.Config({"BLOCK_M": 64, "BN": 64, "BK": 32}, num_warps=4)], ["lipsește BM", "în plus BLOCK_M"]),
        ([_cfg(64, 64, 32, GROUP_M=8)], ["în plus GROUP_M"]),
        ([_cfg(64, 64, 8)], ["BK=8", "cel puțin 16"]),
        ([_cfg(48, 64, 32)], ["BM=48", "putere a lui 2"]),
        ([_cfg(64, 512, 32)], ["BN=512", "prea mare"]),
        ([_cfg("64", 64, 32)], ["BM", "întreg Python", "str"]),
        ([_cfg(np.int64(64), 64, 32)], ["BM", "întreg Python", "int64"]),
        ([_cfg(64, 64, 32), _cfg(64, 64, 32, num_warps=3)], ["configurația 2", "num_warps=3", "putere a lui 2"]),
        ([_cfg(64, 64, 32, num_warps=32)], ["num_warps=32"]),
        ([_cfg(64, 64, 32, num_stages=0)], ["num_stages=0"]),
        (
            [_cfg(64, 64, 32), _cfg(256, 256, 128, num_stages=4)],
            ["Configurația 2", "BM=256", "512 KiB", "memorie partajată", "Micșorează BK sau num_stages"],
        ),
    ],
)
def test_ex1_respinge_greselile_tipice(configuratii, fragmente):
    _respins(cap05.exercitiul_1(configuratii), *fragmente)


@doar_pe_cpu
def test_ex1_pe_cpu_limita_e_cea_a_unui_gpu_mare_si_pomeneste_t4():
    # 3 × (128·64 + 64·128) × 2 = 96 KiB: încape în 227 KiB
    assert cap05.exercitiul_1([_cfg(128, 128, 64, num_warps=8, num_stages=3)])
    _respins(cap05.exercitiul_1([_cfg(256, 256, 64, num_stages=4)]), "256 KiB", "227 KiB", "T4 doar 64 KiB")


def test_ex1_nescris_si_exceptie():
    def configuratii():
        raise NotImplementedError

    rezultat = cap05.exercitiul_1(configuratii)
    assert not rezultat and rezultat.mesaj == NESCRIS

    def cu_eroare():
        return [triton.Config({"BM": 64}, num_warps=4)] + [][1]

    _respins(cap05.exercitiul_1(cu_eroare), "IndexError", "indice")


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
    original = reglare.matmul_cu_configuratie

    def gresit(a, b, BM, BN, BK, **rest):
        c = original(a, b, BM, BN, BK, **rest)
        c[-1, -1] += 1.0
        return c

    monkeypatch.setattr(reglare, "matmul_cu_configuratie", gresit)
    _respins(cap05.exercitiul_1([_cfg(64, 64, 32)]), "Valorile diferă", "configurația 1")


def test_ex1_fara_triton_explica(monkeypatch):
    monkeypatch.setitem(sys.modules, "triton", None)
    _respins(cap05.exercitiul_1([object()]), "triton nu e instalat", "Linux sau Colab")


@doar_pe_gpu
def test_ex1_pe_gpu_masoara_si_accepta_configuratii_bune():
    rezultat = cap05.exercitiul_1(
        [
            _cfg(64, 64, 32, num_warps=4, num_stages=3),
            _cfg(128, 128, 32, num_warps=4, num_stages=4),
            _cfg(128, 128, 64, num_warps=8, num_stages=3),
            _cfg(128, 256, 64, num_warps=8, num_stages=3),
        ]
    )
    assert rezultat, rezultat.text()
    assert "TFLOP/s" in rezultat.mesaj and "cuBLAS" in rezultat.mesaj and "2048" in rezultat.mesaj


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


# --- Exercițiul 2 -----------------------------------------------------------------------------


def pasi_cu_formula(compilare_default_s, pas_default_s, compilare_autotune_s, pas_autotune_s):
    castig = pas_default_s - pas_autotune_s
    extra = compilare_autotune_s - compilare_default_s
    if extra <= castig:
        return 1
    if castig <= 0:
        return None
    return math.ceil(extra / castig)


def pasi_cu_bucla(compilare_default_s, pas_default_s, compilare_autotune_s, pas_autotune_s):
    if pas_autotune_s >= pas_default_s and compilare_autotune_s > compilare_default_s:
        return None
    n = 1
    while compilare_autotune_s + n * pas_autotune_s > compilare_default_s + n * pas_default_s:
        n += 1
    return n


def pasi_cu_numpy(compilare_default_s, pas_default_s, compilare_autotune_s, pas_autotune_s):
    castig = pas_default_s - pas_autotune_s
    if castig <= 0:
        return None if compilare_autotune_s > compilare_default_s else 1
    return max(1, int(np.ceil((compilare_autotune_s - compilare_default_s) / castig)))


@pytest.mark.parametrize("functie", [pasi_cu_formula, pasi_cu_bucla, pasi_cu_numpy, cap05._pasi_referinta])
def test_ex2_accepta_solutii_corecte(functie):
    rezultat = cap05.exercitiul_2(functie)
    assert rezultat, rezultat.text()
    assert "183 334" in rezultat.mesaj


def test_ex2_accepta_intregi_numpy():
    assert cap05.exercitiul_2(lambda *t: None if (r := pasi_cu_formula(*t)) is None else np.int64(r))


def _fara_compilare(cd, pd, ca, pa):
    return 1 if pa <= pd else None


def _cu_floor(cd, pd, ca, pa):
    castig, extra = pd - pa, ca - cd
    if extra <= castig:
        return 1
    return None if castig <= 0 else math.floor(extra / castig)


def _cu_floor_plus_1(cd, pd, ca, pa):
    castig, extra = pd - pa, ca - cd
    if extra <= castig:
        return 1
    return None if castig <= 0 else math.floor(extra / castig) + 1


def _cu_float(cd, pd, ca, pa):
    castig, extra = pd - pa, ca - cd
    if extra <= castig:
        return 1
    return None if castig <= 0 else float(np.ceil(extra / castig))


def _nerotunjit(cd, pd, ca, pa):
    castig, extra = pd - pa, ca - cd
    if extra <= castig:
        return 1
    return None if castig <= 0 else extra / castig


def _zero_in_loc_de_unu(cd, pd, ca, pa):
    castig, extra = pd - pa, ca - cd
    if castig <= 0:
        return None
    return max(0, math.ceil(extra / castig))


def _negativ_in_loc_de_unu(cd, pd, ca, pa):
    castig, extra = pd - pa, ca - cd
    if castig <= 0:
        return None
    return math.ceil(extra / castig)


def _infinit(cd, pd, ca, pa):
    castig, extra = pd - pa, ca - cd
    if extra <= castig:
        return 1
    return math.inf if castig <= 0 else math.ceil(extra / castig)


def _minus_unu(cd, pd, ca, pa):
    castig, extra = pd - pa, ca - cd
    if extra <= castig:
        return 1
    return -1 if castig <= 0 else math.ceil(extra / castig)


def _negativ_fara_none(cd, pd, ca, pa):
    castig, extra = pd - pa, ca - cd
    if extra <= castig:
        return 1
    if castig == 0:
        return None
    return math.ceil(extra / castig)


def _imparte_la_zero(cd, pd, ca, pa):
    return max(1, math.ceil((ca - cd) / (pd - pa)))


def _ordine_gresita(cd, ca, pd, pa):  # a grupat argumentele după fel: compilări, apoi pași
    return pasi_cu_formula(cd, pd, ca, pa)


def _compilare_si_pas_inversate(cd, pd, pa, ca):
    return pasi_cu_formula(cd, pd, ca, pa)


def _roluri_inversate(ca, pa, cd, pd):  # default și max-autotune încurcate
    return pasi_cu_formula(cd, pd, ca, pa)


def _none_mereu(cd, pd, ca, pa):
    return None


def _text(cd, pd, ca, pa):
    return "mulți"


def _pas_in_plus(cd, pd, ca, pa):
    r = pasi_cu_formula(cd, pd, ca, pa)
    return r if r in (None, 1) else r + 1


@pytest.mark.parametrize(
    "functie, fragmente",
    [
        (_fara_compilare, ["ai uitat timpii de compilare", "trebuia 183 334"]),
        (_cu_floor, ["ai întors 183333", "(183 334)", "rotunjit în jos", "După 183 333 de pași", "math.ceil"]),
        (_cu_floor_plus_1, ["641", "exact egale", "≤"]),
        (_cu_float, ["183334.0", "valoarea e bună, dar e un float", "int"]),
        (_nerotunjit, ["n-ai rotunjit", "math.ceil"]),
        (_zero_in_loc_de_unu, ["ai întors 0", "n = 1"]),
        (_negativ_in_loc_de_unu, ["număr negativ", "primul pas", "max(1, n)"]),
        (_infinit, ["inf", "None, nu infinit"]),
        (_minus_unu, ["-1", "None (nu -1)"]),
        (_negativ_fara_none, ["-183333", "număr negativ", "None"]),
        (_imparte_la_zero, ["pași egali", "împărțit la zero", "None"]),
        (_ordine_gresita, ["ai uitat timpii de compilare", "altă ordine"]),
        (_compilare_si_pas_inversate, ["altă ordine", "pas_autotune_s, compilare_autotune_s"]),
        (_roluri_inversate, ["altă ordine", "compilare_autotune_s, pas_autotune_s, compilare_default_s"]),
        (_none_mereu, ["ai întors None", "183 334 de pași"]),
        (_text, ["'mulți'", "str"]),
        (_pas_in_plus, ["183335", "cu unu mai mult", "un pas în plus"]),
    ],
)
def test_ex2_respinge_greselile_tipice(functie, fragmente):
    _respins(cap05.exercitiul_2(functie), *fragmente)


def test_ex2_bucla_fara_sfarsit_e_oprita(monkeypatch):
    monkeypatch.setattr(cap05, "_LIMITA_TIMP_2_S", 0.3)

    def bucla_fara_none(cd, pd, ca, pa):
        n = 1
        while ca + n * pa > cd + n * pd:
            n += 1
        return n

    _respins(cap05.exercitiul_2(bucla_fara_none), "n-a terminat", "pasul lui nu e mai rapid", "None")


def test_ex2_nescris_si_exceptie():
    def pasi_de_rentabilitate(compilare_default_s, pas_default_s, compilare_autotune_s, pas_autotune_s):
        raise NotImplementedError

    rezultat = cap05.exercitiul_2(pasi_de_rentabilitate)
    assert not rezultat and rezultat.mesaj == NESCRIS
    _respins(cap05.exercitiul_2(lambda cd, pd, ca: 1), "TypeError", "tipic")
    _respins(cap05.exercitiul_2(42), "funcție")


def test_ex2_cazurile_sunt_exacte_si_diagnosticele_distincte():
    asteptate = [cap05._pasi_referinta(*caz.argumente) for caz in cap05._CAZURI_2]
    assert asteptate == [183334, 640, 1, 1, None, None]
    cd, pd, ca, pa = cap05._CAZURI_2[1].argumente
    assert ca + 640 * pa == cd + 640 * pd  # egalitate exactă, la bit
    assert cap05._pasi_referinta(10.0, 0.002, 10.0, 0.002) == 1  # nimic de recuperat


# --- Exercițiul 3 -----------------------------------------------------------------------------


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


@pytest.mark.parametrize("functie", [plan_cu_tupluri, plan_cu_major, plan_cu_numpy])
def test_ex3_accepta_planuri_corecte(functie):
    rezultat = cap05.exercitiul_3(functie)
    assert rezultat, rezultat.text()
    assert "pe care nu le-ai văzut" in rezultat.mesaj


def test_ex3_gpu_urile_de_exemplu():
    nume = [g.nume for g in cap05.GPU_URI_DE_EXEMPLU]
    assert len(nume) == 9 and "GeForce RTX 3080" in nume and "H200" in nume
    rtx3080 = next(g for g in cap05.GPU_URI_DE_EXEMPLU if g.nume == "GeForce RTX 3080")
    assert rtx3080.numar_sm == SM_MINIM_GEMM_AUTOTUNE == 68
    assert cap05.DescriereGPU("x", (8, 0), 1, 1.0).capabilitate == (8, 0)


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
            [],
        ),
        (_cu(dtype=lambda g: torch.bfloat16), ["Tesla T4", "Tesla V100", "emulează", "float16"], ["A100,"]),
        (_cu(dtype=lambda g: torch.float16), ["A100 (8.0)", "H100", "65 504", "GradScaler", "Alege bfloat16"], ["Tesla T4"]),
        (_cu(dtype=lambda g: torch.bfloat16 if g.capabilitate > (8, 0) else torch.float16), ["A100", "exact (8, 0)"], []),
        (_cu(dtype=lambda g: torch.bfloat16 if g.memorie_gib >= 24 else torch.float16), ["depinde de memorie"], []),
        (_cu(dtype=lambda g: torch.float64), ["float64", "doar între torch.bfloat16 și torch.float16"], []),
        (
            _cu(sabloane=lambda g: g.numar_sm > 68),
            ["False în loc de True pentru: GeForce RTX 3080 (68 de SM), GeForce RTX 2080 Ti (68 de SM)", "Pragul e inclusiv", "nu > 68"],
            ["după memorie"],
        ),
        (_cu(sabloane=lambda g: g.memorie_gib >= 24), ["după memorie", "nu depinde de numar_sm", "Not enough SMs"], []),
        (_cu(sabloane=lambda g: g.capabilitate >= (8, 0)), ["Tesla V100", "după capabilitate"], ["după memorie"]),
        (_cu(sabloane=lambda g: g.nume in _NUME_CU_SABLOANE), ["GeForce RTX 2080 Ti", "A10G", "după numele"], []),
        (_cu(sabloane=lambda g: g.numar_sm >= 80), ["GeForce RTX 3080", "Regula lui Inductor"], ["după memorie"]),
    ],
)
def test_ex3_respinge_greselile_tipice(functie, fragmente, absente):
    rezultat = cap05.exercitiul_3(functie)
    _respins(rezultat, "Planul e greșit pentru", *fragmente)
    for fragment in absente:
        assert fragment not in rezultat.mesaj, rezultat.mesaj


def test_ex3_amandoua_greselile_deodata():
    rezultat = cap05.exercitiul_3(lambda g: {"dtype": torch.float32, "sabloane_gemm": g.numar_sm > 68})
    _respins(rezultat, "toate cele 14 GPU-uri", "Tipul de date", "Șabloanele GEMM", "nucleele tensoriale", "Pragul e inclusiv")


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
        (lambda g: {"dtype": g.tip, "sabloane_gemm": True}, ["AttributeError", "Tesla T4"]),
    ],
)
def test_ex3_respinge_raspunsuri_malformate(functie, fragmente):
    _respins(cap05.exercitiul_3(functie), *fragmente)


def test_ex3_regula_dupa_nume_cade_pe_gpu_urile_nevazute():
    planuri = {g.nume: plan_cu_tupluri(g) for g in cap05.GPU_URI_DE_EXEMPLU}
    _respins(cap05.exercitiul_3(lambda g: planuri[g.nume]), "KeyError", "nu e în GPU_URI_DE_EXEMPLU", "numar_sm")


def test_ex3_nescris():
    def plan_pentru(gpu):
        raise NotImplementedError

    rezultat = cap05.exercitiul_3(plan_pentru)
    assert not rezultat and rezultat.mesaj == NESCRIS
