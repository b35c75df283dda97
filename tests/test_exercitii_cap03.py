"""Verificările capitolului 03: soluțiile corecte (și alte formulări corecte) acceptate, iar
răspunsurile greșite din toate clasele (nescris, None, formă, tip, excepție, pe de rost,
aproape-corect, ocolirea lecției, absurd, buclă infinită, prea lent) respinse cu explicația
potrivită, fără traceback și fără să blocheze verificarea.

Pe CPU, kernel-urile Triton rulează prin interpretor (TRITON_INTERPRET=1, pus de pachet);
testele marcate `pe_gpu` rulează doar cu CUDA (ramura GPU a exercițiului 2)."""

import math
import time

import numpy as np
import pytest
import torch

from curs_compilare.exercitii import cap03

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")

PE_GPU = torch.cuda.is_available() and not cap03._pe_interpretor()
pe_gpu = pytest.mark.skipif(not PE_GPU, reason="cere un GPU CUDA (fără interpretorul Triton)")
pe_cpu = pytest.mark.skipif(PE_GPU, reason="limitele de timp ale interpretorului Triton, pe CPU")


def _respins(rezultat, *fragmente, lipsesc=()):
    assert not rezultat, rezultat.mesaj
    for fragment in fragmente:
        assert fragment in rezultat.mesaj, (fragment, rezultat.mesaj)
    for fragment in lipsesc:
        assert fragment not in rezultat.mesaj, (fragment, rezultat.mesaj)
    assert "Traceback" not in rezultat.mesaj


# --- Exercițiul 1 -----------------------------------------------------------------------------


def _solutia_1(n, octeti_pe_element):
    tensor = n * octeti_pe_element
    return (2 + 3 + 2 + 3) * tensor, 3 * tensor


def test_ex1_accepta_solutia_si_alte_formulari():
    assert cap03.exercitiul_1(_solutia_1)

    def pe_operatii(n, octeti_pe_element):
        tensor = n * octeti_pe_element
        eager = sum(citiri + scrieri for citiri, scrieri in [(1, 1), (2, 1), (1, 1), (2, 1)]) * tensor
        return [eager, (2 + 1) * tensor]

    assert cap03.exercitiul_1(pe_operatii)
    assert cap03.exercitiul_1(lambda n, e: (torch.tensor(10.0 * n * e), np.int64(3 * n * e)))
    assert cap03.exercitiul_1(lambda n, e: torch.tensor([10.0 * n * e, 3.0 * n * e], dtype=torch.float64))
    assert cap03.exercitiul_1(lambda n, e: np.array([10 * n * e, 3 * n * e]))


def test_ex1_intrarile_sunt_aleatoare():
    vazute = []

    def inregistreaza(n, e):
        vazute.append((n, e))
        return _solutia_1(n, e)

    assert cap03.exercitiul_1(inregistreaza)
    primele = list(vazute)
    vazute.clear()
    assert cap03.exercitiul_1(inregistreaza)
    assert primele != vazute and len({e for _, e in primele}) >= 3


def _ex1_stub(n, e):
    raise NotImplementedError


_CAZURI_OLD = {(1000, 4): (40000, 12000), (4096, 2): (81920, 24576), (12345, 4): (493800, 148140), (7, 8): (560, 168)}


@pytest.mark.parametrize(
    "functie, fragmente, lipsesc",
    [
        (_ex1_stub, ["n-ai scris soluția"], []),
        (lambda n, e: None, ["pereche", "None"], []),
        (lambda n, e: (10 * n * e, 3 * n * e, 0), ["pereche"], []),  # formă greșită
        (lambda n, e: 10 * n * e, ["pereche"], []),
        (lambda n, e: ("mult", 3), ["număr", "str"], []),  # tip greșit
        (lambda n, e: (10 * n * e, torch.ones(3)), ["tensor de forma (3,)"], []),
        (lambda n, e: (1 / 0, 0), ["ZeroDivisionError", "linia"], []),  # excepție
        (lambda n, e: (40000, 12000), ["proporționali"], []),  # pe de rost
        (lambda n, e: _CAZURI_OLD.get((n, e), (1, 1)), ["proporționali"], []),  # tabelul vechilor cazuri
        (lambda n, e: (10 * n, 3 * n), ["elemente, nu octeți"], []),
        (lambda n, e: (10 * e, 3 * e), ["nu crește cu n"], ["elemente"]),
        (lambda n, e: (80 * n * e, 24 * n * e), ["biți"], []),
        (lambda n, e: (7 * n * e, 3 * n * e), ["doar citirile"], []),
        (lambda n, e: (4 * n * e, 3 * n * e), ["doar scrierile"], []),
        (lambda n, e: (8 * n * e, 2 * n * e), ["doi tensori"], []),
        (lambda n, e: (10 * n * e, 4 * n * e), ["o singură dată"], []),
        (lambda n, e: (10 * n * e, 2 * n * e), ["și x, și y"], []),
        (lambda n, e: (10 * n * e, 10 * n * e), ["aceeași valoare ca eager"], []),
        (lambda n, e: (3 * n * e, 10 * n * e), ["inversat"], ["fuzionată; eager"]),
        # aproape-corecte: nu primesc diagnosticul unei greșeli pe care n-au făcut-o
        (lambda n, e: (10.5 * n * e, 3 * n * e), ["10,5 tensori"], ["biți", "citirile", "scrierile"]),
        (lambda n, e: (10 * n * e, 3.2 * n * e), ["3,2 tensori"], ["biți", "o singură dată"]),
        (lambda n, e: (10 * n * e + 5, 3 * n * e), ["proporționali"], ["elemente, nu octeți"]),
        (lambda n, e: (10 * n * e + n, 3 * n * e), ["proporționali"], ["elemente, nu octeți"]),
        # absurde
        (lambda n, e: (-10 * n * e, -3 * n * e), ["negativi"], []),
        (lambda n, e: (float("nan"), 3 * n * e), ["nan"], []),
        (lambda n, e: (1e300 * n * e, 3 * n * e), ["peste un milion"], []),
        (lambda n, e: (True, False), ["bool"], []),
    ],
)
def test_ex1_respinge_cu_explicatia_potrivita(functie, fragmente, lipsesc):
    _respins(cap03.exercitiul_1(functie), *fragmente, lipsesc=lipsesc)


def test_ex1_bucla_infinita_cu_except_gol(monkeypatch):
    monkeypatch.setattr(cap03, "LIMITA_APEL_1_S", 0.3)

    def incapatanat(n, e):
        while True:
            try:
                pass
            except:  # noqa: E722 — exact ce face un cursant care înghite întreruperea
                pass

    start = time.perf_counter()
    _respins(cap03.exercitiul_1(incapatanat), "n-a terminat")
    assert time.perf_counter() - start < 5


def test_ex1_raspuns_prea_lent(monkeypatch):
    monkeypatch.setattr(cap03, "LIMITA_APEL_1_S", 0.3)

    def lent(n, e):
        time.sleep(30)
        return _solutia_1(n, e)

    start = time.perf_counter()
    _respins(cap03.exercitiul_1(lent), "n-a terminat")
    assert time.perf_counter() - start < 5


# --- Exercițiul 2: kernel-urile ---------------------------------------------------------------


@triton.jit
def _kernel_solutie(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b, mask=masca)


@triton.jit
def _kernel_cu_exp(x_ptr, y_ptr, z_ptr, numar, BLOCK_SIZE: tl.constexpr):  # alte nume, altă formulă
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    masca = offsets < numar
    a = tl.load(x_ptr + offsets, mask=masca, other=0.0).to(tl.float32)
    b = tl.load(y_ptr + offsets, mask=masca, other=0.0).to(tl.float32)
    tl.store(z_ptr + offsets, a / (1.0 + tl.exp(-a)) * b, mask=masca)


@triton.jit
def _kernel_doar_float32(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca)
    b = tl.load(b_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b, mask=masca)


@triton.jit
def _kernel_fara_masca_la_scriere(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=masca, other=0.0)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b)


@triton.jit
def _kernel_fara_program_id(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b, mask=masca)


@triton.jit
def _kernel_deplasat(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = (tl.program_id(0) - 1) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca & (offsets >= 0), other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=masca & (offsets >= 0), other=0.0)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b, mask=masca)


@triton.jit
def _kernel_fara_a(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, tl.sigmoid(a) * b, mask=masca)


@triton.jit
def _kernel_fara_b(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca).to(tl.float32)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a), mask=masca)


@triton.jit
def _kernel_aproape(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b * 1.01, mask=masca)


@triton.jit
def _kernel_constant(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):  # „pe de rost”
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(iesire_ptr + offsets, tl.zeros([BLOCK], dtype=tl.float32) + 0.25, mask=offsets < n)


@triton.jit
def _kernel_formula_gresita(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=masca).to(tl.float32)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(b), mask=masca)


@triton.jit
def _kernel_patru_parametri(a_ptr, b_ptr, iesire_ptr, n):
    offsets = tl.program_id(0) * 128 + tl.arange(0, 128)
    tl.store(iesire_ptr + offsets, tl.load(a_ptr + offsets), mask=offsets < n)


@triton.jit
def _kernel_bloc_neconstant(a_ptr, b_ptr, iesire_ptr, n, BLOCK):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b, mask=masca)


@triton.jit
def _kernel_cu_torch(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, torch.sigmoid(a), mask=masca)


@triton.jit
def _kernel_gol(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    pass


@triton.jit
def _kernel_nescris(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    raise NotImplementedError


@triton.jit
def _kernel_bucla_pe_elemente(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    inceput = tl.program_id(0) * BLOCK
    for i in range(BLOCK):
        j = inceput + i
        if j < n:
            a = tl.load(a_ptr + j).to(tl.float32)
            b = tl.load(b_ptr + j)
            tl.store(iesire_ptr + j, a * tl.sigmoid(a) * b)


@triton.jit
def _kernel_persistent(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):  # un program, buclă pe blocuri
    for inceput in range(0, n, BLOCK):
        offsets = inceput + tl.arange(0, BLOCK)
        masca = offsets < n
        a = tl.load(a_ptr + offsets, mask=masca).to(tl.float32)
        b = tl.load(b_ptr + offsets, mask=masca)
        tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b, mask=masca)


@triton.jit
def _kernel_sigmoid(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    tl.store(y_ptr + offsets, tl.sigmoid(tl.load(x_ptr + offsets, mask=masca).to(tl.float32)), mask=masca)


@triton.jit
def _kernel_produs(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    x = tl.load(x_ptr + offsets, mask=masca).to(tl.float32)
    tl.store(z_ptr + offsets, x * tl.load(y_ptr + offsets, mask=masca), mask=masca)


def _kernel_fara_jit(a_ptr, b_ptr, iesire_ptr, n, BLOCK):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca).to(tl.float32)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * tl.load(b_ptr + offsets, mask=masca), mask=masca)


# --- Exercițiul 2: funcții care lansează singure kernel-ul --------------------------------------


def _swiglu(a, b):
    """Ca `lant_triton` din capitol: alocă ieșirea și lansează kernel-ul."""
    iesire = torch.empty_like(a)
    n = a.numel()
    _kernel_solutie[(triton.cdiv(n, 512),)](a, b, iesire, n, BLOCK=512)
    return iesire


def _un_singur_program(a, b, iesire, n, BLOCK):
    """O grilă de un singur program, corectă pentru orice n (blocul cuprinde tot tensorul)."""
    _kernel_solutie[(1,)](a, b, iesire, n, BLOCK=max(64, triton.next_power_of_2(n)))


def _un_program_bucla_pe_blocuri(a, b, iesire, n, BLOCK):
    _kernel_persistent[(1,)](a, b, iesire, n, BLOCK=1024)


def _grila_prea_mica(a, b, iesire, n, BLOCK):
    _kernel_solutie[(1,)](a, b, iesire, n, BLOCK=1024)


def _bloc_de_un_element(a, b, iesire, n, BLOCK):
    _kernel_solutie[(n,)](a, b, iesire, n, BLOCK=1)


def _prea_multe_programe(a, b, iesire, n, BLOCK):
    """Corect ca valori (masca), dar câte un program pentru fiecare element."""
    _kernel_solutie[(n,)](a, b, iesire, n, BLOCK=1024)


def _trei_kerneluri(a, b, iesire, n, BLOCK):
    """Corect ca valori, dar nefuzionat: trei kernel-uri și doi tensori intermediari."""
    grila = (triton.cdiv(n, BLOCK),)
    s = torch.empty(n, device=a.device)
    _kernel_sigmoid[grila](a, s, n, BLOCK=BLOCK)
    t = torch.empty(n, device=a.device)
    _kernel_produs[grila](a, s, t, n, BLOCK=BLOCK)
    _kernel_produs[grila](t, b, iesire, n, BLOCK=BLOCK)


def _torch_si_un_kernel_de_decor(a, b, iesire, n, BLOCK):
    iesire.copy_(cap03.referinta_swiglu(a, b))
    _kernel_gol[(1,)](a, b, iesire, n, BLOCK=64)


def _doar_torch(a, b, iesire, n, BLOCK):
    iesire.copy_(cap03.referinta_swiglu(a, b))


def _swiglu_tip_gresit(a, b):
    iesire = torch.empty(a.shape, device=a.device, dtype=torch.float32)
    _kernel_solutie[(triton.cdiv(a.numel(), 512),)](a, b, iesire, a.numel(), BLOCK=512)
    return iesire


def _swiglu_forma_gresita(a, b):
    return _swiglu(a, b).reshape(1, -1)


def _swiglu_meta(a, b):
    _swiglu(a, b)
    return torch.empty(a.shape, device="meta", dtype=a.dtype)


def test_ex2_accepta_solutia_si_alte_formulari():
    for raspuns in (
        _kernel_solutie,
        _kernel_cu_exp,  # alte nume de parametri, sigmoid scris cu tl.exp
        _swiglu,  # o funcție care îl lansează și întoarce rezultatul, ca lant_triton
        _kernel_solutie[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)],  # grila ca funcție
        *(() if torch.cuda.is_available() else (_un_singur_program,)),  # un singur program (doar prin interpretor: pe GPU blocul depășește 2^20)
        _un_program_bucla_pe_blocuri,  # un program care parcurge blocurile (nu elementele)
    ):
        rezultat = cap03.exercitiul_2(raspuns)
        assert rezultat, rezultat.mesaj
        assert "float16" in rezultat.mesaj


def test_ex2_intrarile_sunt_aleatoare():
    vazute = []

    def inregistreaza(a, b):
        vazute.append((a.numel(), a.dtype, float(a[0])))
        return _swiglu(a, b)

    assert cap03.exercitiul_2(inregistreaza)
    primele = list(vazute)
    vazute.clear()
    assert cap03.exercitiul_2(inregistreaza)
    assert primele != vazute
    marimi = [n for n, _, _ in primele]
    assert {tip for _, tip, _ in primele} == {torch.float16, torch.float32}
    assert any(n < 128 for n in marimi) and any(n % 256 == 0 for n in marimi) and any(n % 1024 for n in marimi)


@pytest.mark.parametrize(
    "raspuns, fragmente, lipsesc",
    [
        (_kernel_gol, ["n-a scris nimic"], []),  # celula nescrisă din notebook (`pass`)
        (_kernel_nescris, ["n-ai scris soluția"], []),
        (None, ["None"], []),
        (42, ["int", "@triton.jit"], []),
        (_kernel_patru_parametri, ["exact parametrii"], []),  # „formă” greșită a kernel-ului
        (_swiglu_forma_gresita, ["Forma rezultatului"], []),
        (_swiglu_tip_gresit, ["Tipul rezultatului e torch.float32", "float16"], []),
        (_swiglu_meta, ["meta"], []),
        (_kernel_doar_float32, ["float32, dar nu și pe float16", ".to(tl.float32)"], []),
        (_kernel_cu_torch, ["n-a rulat", "tl.*"], []),  # excepție în kernel
        (_kernel_bloc_neconstant, ["tl.constexpr"], []),
        (_kernel_constant, ["Valorile diferă"], []),  # pe de rost
        (_kernel_aproape, ["Valorile diferă"], ["lipsește", "n-ai înmulțit"]),  # aproape-corect
        (_kernel_formula_gresita, ["Valorile diferă"], []),
        (_kernel_fara_a, ["lipsește înmulțirea cu a"], []),
        (_kernel_fara_b, ["n-ai înmulțit cu b"], []),
        (_kernel_fara_masca_la_scriere, ["după sfârșitul", "mask"], []),
        (_kernel_fara_program_id, ["doar primul bloc", "tl.program_id"], []),
        (_kernel_deplasat, ["înaintea începutului"], []),
        (cap03.referinta_swiglu, ["operații torch", "@triton.jit"], []),  # ocolirea lecției
        (_doar_torch, ["operații torch"], []),
        (_torch_si_un_kernel_de_decor, ["apare și fără kernel-ul Triton"], []),
        (_trei_kerneluri, ["kernel-uri Triton diferite", "fuzionat"], []),
        (_kernel_fara_jit, ["în afara unui kernel", "@triton.jit"], []),
        (lambda x: x, ["nu e un kernel Triton"], []),
        # grila deja aleasă: greșeala e grila, nu lipsa lui @triton.jit
        (_kernel_solutie[(1,)], ["Grila ta pornește 1 program", "triton.cdiv(n, BLOCK)"], ["@triton.jit"]),
        (_grila_prea_mica, ["Grila ta pornește 1 program"], ["@triton.jit"]),
        (_bloc_de_un_element, ["BLOCK = 1", "cel puțin 64"], ["@triton.jit"]),  # prea lent, respins din grilă
        (_prea_multe_programe, ["Grila ta pornește", "în loc de triton.cdiv(n, BLOCK) = 1"], ["blocuri atât de mici"]),
    ],
)
def test_ex2_respinge_cu_explicatia_potrivita(raspuns, fragmente, lipsesc):
    start = time.perf_counter()
    _respins(cap03.exercitiul_2(raspuns), *fragmente, lipsesc=lipsesc)
    assert time.perf_counter() - start < 15


@pe_cpu
def test_ex2_bucla_pe_elemente_e_oprita_ca_prea_lenta(monkeypatch):
    monkeypatch.setattr(cap03, "LIMITA_MINIMA_CPU_S", 0.5)
    monkeypatch.setattr(cap03, "FACTOR_LENT_CPU", 5)
    start = time.perf_counter()
    _respins(cap03.exercitiul_2(_kernel_bucla_pe_elemente), "n-a terminat", "mult prea lent", "tl.arange")
    assert time.perf_counter() - start < 8


@triton.jit
def _kernel_incapatanat(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    while True:
        try:
            pass
        except:  # noqa: E722
            pass


@pe_cpu
def test_ex2_bucla_infinita_cu_except_gol(monkeypatch):
    monkeypatch.setattr(cap03, "LIMITA_MINIMA_CPU_S", 0.5)
    monkeypatch.setattr(cap03, "FACTOR_LENT_CPU", 5)
    start = time.perf_counter()
    _respins(cap03.exercitiul_2(_kernel_incapatanat), "n-a terminat")
    assert time.perf_counter() - start < 5
    # după întrerupere, interpretorul și lansările Triton sunt la loc: o soluție corectă trece
    assert "run" in vars(type(_kernel_solutie)) and not cap03._inregistrari_active
    assert cap03.exercitiul_2(_kernel_solutie)


def test_ex2_functie_care_nu_se_opreste(monkeypatch):
    monkeypatch.setattr(cap03, "LIMITA_SONDA_S", 0.3)

    def incapatanata(a, b, iesire, n, BLOCK):
        while True:
            try:
                time.sleep(0.01)
            except:  # noqa: E722
                pass

    start = time.perf_counter()
    _respins(cap03.exercitiul_2(incapatanata), "n-a terminat", "buclă")
    assert time.perf_counter() - start < 5


@pe_cpu
def test_ex2_limita_de_timp_nu_respinge_solutia():
    """Limita de timp e pe măsura interpretorului: soluția trece cu mult sub ea."""
    start = time.perf_counter()
    assert cap03.exercitiul_2(_kernel_solutie)
    assert time.perf_counter() - start < 15


# --- Exercițiul 2 pe GPU (le rulează coordonatorul pe un H200) -------------------------------


@pe_gpu
def test_ex2_gpu_accepta_solutia_si_alternativele():
    for raspuns in (_kernel_solutie, _kernel_cu_exp, _swiglu, _kernel_solutie[lambda m: (triton.cdiv(m["n"], m["BLOCK"]),)]):
        rezultat = cap03.exercitiul_2(raspuns)
        assert rezultat, rezultat.mesaj
        assert "pe GPU" in rezultat.mesaj


@pe_gpu
@pytest.mark.parametrize(
    "raspuns, fragmente",
    [
        (_kernel_gol, ["n-a scris nimic"]),
        (_kernel_doar_float32, ["float16"]),
        (_kernel_fara_masca_la_scriere, ["după sfârșitul"]),
        (_kernel_fara_program_id, ["doar primul bloc"]),
        (_kernel_fara_a, ["lipsește înmulțirea cu a"]),
        (_kernel_aproape, ["Valorile diferă"]),
        (_kernel_cu_torch, ["n-a rulat"]),
        (_kernel_bloc_neconstant, ["tl.constexpr"]),
        (_swiglu_tip_gresit, ["Tipul rezultatului"]),
        (_kernel_solutie[(1,)], ["Grila ta"]),
        (_bloc_de_un_element, ["cel puțin 64"]),
        (_prea_multe_programe, ["Grila ta pornește"]),
        (_torch_si_un_kernel_de_decor, ["apare și fără kernel-ul Triton"]),
        (_trei_kerneluri, ["kernel-uri Triton diferite"]),
        (_kernel_bucla_pe_elemente, ["mult prea lent"]),
        (_un_program_bucla_pe_blocuri, ["mult prea lent", "multiprocesor (SM)"]),
    ],
)
def test_ex2_gpu_respinge(raspuns, fragmente):
    _respins(cap03.exercitiul_2(raspuns), *fragmente)


@pe_gpu
def test_ex2_gpu_rezultat_pe_alt_dispozitiv():
    def pe_procesor(a, b):
        return _swiglu(a, b).cpu()

    _respins(cap03.exercitiul_2(pe_procesor), "Rezultatul e pe cpu")


@pe_gpu
def test_ex2_gpu_un_singur_program_mare_nu_trece():
    """Un singur program cu tot tensorul: corect prin interpretor, dar pe GPU ori nu încape
    (Triton limitează blocul la 2^20 de elemente), ori e mult prea lent."""
    rezultat = cap03.exercitiul_2(_un_singur_program)
    assert not rezultat
    assert "prea mare" in rezultat.mesaj or "lent" in rezultat.mesaj, rezultat.mesaj


# --- Exercițiul 3 -----------------------------------------------------------------------------


def test_ex3_accepta_valori_exacte_si_rotunjite():
    assert cap03.exercitiul_3(dict(cap03.ACCELERARI_ASTEPTATE))
    assert cap03.exercitiul_3({"A": 1, "B": 5, "C": 1, "D": 2, "E": 1.5})
    assert cap03.exercitiul_3({"A": 1.1, "B": 4.5, "C": 0.9, "D": 2.2, "E": 2})
    assert cap03.exercitiul_3({"A": np.float32(1), "B": torch.tensor(5.0), "C": 1, "D": np.int64(2), "E": 5 / 3})


def test_ex3_respinge_cu_explicatie_pe_functie():
    rezultat = cap03.exercitiul_3({"A": 1, "B": 5, "C": 4, "D": 2, "E": 1.7})
    _respins(rezultat, "C:", "limitat de calcul", lipsesc=["B:"])
    rezultat = cap03.exercitiul_3({"A": 1, "B": 2, "C": 1, "D": 4, "E": 1.7})
    _respins(rezultat, "B:", "D:", lipsesc=["A:", "C:", "E:"])


@pytest.mark.parametrize(
    "predictii, fragmente",
    [
        ({"A": None, "B": None, "C": None, "D": None, "E": None}, ["n-ai completat"]),  # celula nescrisă
        (None, ["dicționar", "NoneType"]),
        ([1, 5, 1, 2, 1.7], ["dicționar"]),  # formă greșită
        ({"A": 1, "B": 5}, ["Lipsesc", "C, D, E"]),
        ({"a": 1, "b": 5, "c": 1, "d": 2, "e": 1.7}, ["literele mari"]),
        ({"A": 1, "B": 5, "C": 1, "D": 2, "E": "mult"}, ["număr", "str"]),  # tip greșit
        ({"A": 1, "B": 5, "C": 1, "D": 2, "E": True}, ["bool"]),
        ({"A": 0, "B": 5, "C": 1, "D": 2, "E": 1.7}, ["pozitiv"]),
        ({"A": -1, "B": 5, "C": 1, "D": 2, "E": 1.7}, ["pozitiv"]),
        ({"A": 1, "B": float("nan"), "C": 1, "D": 2, "E": 1.7}, ["nan"]),
        ({"A": 1, "B": 1e12, "C": 1, "D": 2, "E": 1.7}, ["B:", "peste un milion"]),
        ({"A": 1, "B": 3.7, "C": 1, "D": 2, "E": 1.7}, ["B:", "≈5×"]),  # aproape, dar în afara toleranței
        ({"A": 1, "B": 5, "C": 1, "D": 2, "E": 3}, ["E:", "5 / 3"]),
        ({"A": 1, "B": 10, "C": 1, "D": 4, "E": 5}, ["B:", "D:", "E:"]),  # octeți eager în loc de raport
    ],
)
def test_ex3_respinge_raspunsuri_gresite(predictii, fragmente):
    _respins(cap03.exercitiul_3(predictii), *fragmente)


def test_ex3_exceptie_in_raspuns_devine_mesaj():
    class Predictii(dict):
        def __getitem__(self, cheie):
            raise KeyError(cheie)

    rezultat = cap03.exercitiul_3(Predictii(A=1, B=5, C=1, D=2, E=1.7))
    _respins(rezultat, "KeyError")


def test_ex3_functiile_dau_aceleasi_valori_compilate():
    for litera, functie in cap03.FUNCTII_DE_PREZIS.items():
        x, y = cap03.intrari_pentru(litera, 4096, "cpu")
        torch.testing.assert_close(torch.compile(functie, dynamic=False)(x, y), functie(x, y), rtol=1e-4, atol=1e-3)


def test_ex3_modelul_e_raportul_drumurilor():
    """Accelerările așteptate sunt chiar rapoartele drumurilor la cămară din explicații."""
    assert math.isclose(cap03.ACCELERARI_ASTEPTATE["B"], 10 / 2)
    assert math.isclose(cap03.ACCELERARI_ASTEPTATE["D"], 4 / 2)
    assert math.isclose(cap03.ACCELERARI_ASTEPTATE["E"], 5 / 3)


def _copiaza_rezultatul_torch_apoi_lanseaza(a, b):
    """Ocolire: rezultatul calculat cu torch, copiat în ieșirea dată apoi unui kernel."""
    iesire = torch.empty_like(a)
    iesire.copy_(a * torch.sigmoid(a) * b)
    n = a.numel()
    _kernel_solutie[(triton.cdiv(n, 1024),)](a, b, iesire, n, BLOCK=1024)
    return iesire


def test_ex2_ocolirea_prin_iesirea_data_kernelului_e_prinsa():
    _respins(cap03.exercitiul_2(_copiaza_rezultatul_torch_apoi_lanseaza), "fără kernel-ul Triton")


def test_ex2_memoria_veche_nu_e_luata_drept_calcul_torch(monkeypatch):
    """Cu aceeași sămânță, a doua verificare primește aceleași date: ieșirea neinițializată poate
    conține rezultatul primei verificări, fără ca funcția să fi calculat ceva cu torch."""
    monkeypatch.setenv("CURS_SEMINTA", "1")
    for _ in range(3):
        rezultat = cap03.exercitiul_2(_swiglu)
        assert rezultat, rezultat.mesaj


@pe_cpu
def test_ex2_limbajul_lasat_inlocuit_de_interpretor_e_reparat():
    """O întrerupere căzută cât interpretorul Triton își schimba limbajul îl lasă schimbat: o
    funcție fără @triton.jit ar rula pe jumătate, cu alt mesaj. Verificarea repune limbajul, iar
    răspunsul e explicat la fel ca într-un proces curat."""
    from triton.runtime import interpreter

    original = tl.program_id
    interpreter._patch_lang(_kernel_solutie.fn)  # fără restore, ca după o întrerupere
    assert tl.program_id is not original
    _respins(cap03.exercitiul_2(_kernel_fara_jit), "în afara unui kernel", "@triton.jit")
    assert tl.program_id is original
    assert cap03.exercitiul_2(_swiglu)
