"""Verificările capitolului 03 acceptă răspunsurile corecte (în mai multe forme) și resping
greșelile tipice cu explicația potrivită."""

import pytest
import torch

from curs_compilare.exercitii import cap03

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")


# --- Exercițiul 1 -----------------------------------------------------------------------------


def test_ex1_accepta_formula_si_numarare_pe_operatii():
    assert cap03.exercitiul_1(lambda n, e: (10 * n * e, 3 * n * e))

    def pe_operatii(n, octeti_pe_element):
        tensor = n * octeti_pe_element
        eager = sum(citiri + scrieri for citiri, scrieri in [(1, 1), (2, 1), (1, 1), (2, 1)]) * tensor
        return [eager, (2 + 1) * tensor]

    assert cap03.exercitiul_1(pe_operatii)
    assert cap03.exercitiul_1(lambda n, e: (torch.tensor(10.0 * n * e), 3.0 * n * e))


@pytest.mark.parametrize(
    "functie, fragment",
    [
        (lambda n, e: (10 * n, 3 * n), "elemente, nu octeți"),
        (lambda n, e: (80 * n * e, 24 * n * e), "biți"),
        (lambda n, e: (7 * n * e, 3 * n * e), "doar citirile"),
        (lambda n, e: (4 * n * e, 3 * n * e), "doar scrierile"),
        (lambda n, e: (8 * n * e, 2 * n * e), "doi tensori"),
        (lambda n, e: (10 * n * e, 4 * n * e), "o singură dată"),
        (lambda n, e: (10 * n * e, 2 * n * e), "și x, și y"),
        (lambda n, e: (10 * n * e, 10 * n * e), "aceeași valoare ca eager"),
        (lambda n, e: (10 * n * e + 5, 3 * n * e), "proporționali"),
        (lambda n, e: 10 * n * e, "pereche"),
        (lambda n, e: None, "pereche"),
        (lambda n, e: ("mult", 3), "număr"),
    ],
)
def test_ex1_respinge_greselile_tipice(functie, fragment):
    rezultat = cap03.exercitiul_1(functie)
    assert not rezultat
    assert fragment in rezultat.mesaj


def test_ex1_nescris():
    def octeti_mutati(n, e):
        raise NotImplementedError

    rezultat = cap03.exercitiul_1(octeti_mutati)
    assert not rezultat and "NotImplementedError" in rezultat.mesaj


# --- Exercițiul 2 -----------------------------------------------------------------------------


@triton.jit
def _kernel_corect(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca)
    b = tl.load(b_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b, mask=masca)


@triton.jit
def _kernel_cu_exp(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca, other=0.0)
    b = tl.load(b_ptr + offsets, mask=masca, other=0.0)
    tl.store(iesire_ptr + offsets, a / (1.0 + tl.exp(-a)) * b, mask=masca)


@triton.jit
def _kernel_fara_masca_la_scriere(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca, other=0.0)
    b = tl.load(b_ptr + offsets, mask=masca, other=0.0)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b)


@triton.jit
def _kernel_fara_program_id(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca)
    b = tl.load(b_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b, mask=masca)


@triton.jit
def _kernel_fara_a(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca)
    b = tl.load(b_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, tl.sigmoid(a) * b, mask=masca)


@triton.jit
def _kernel_formula_gresita(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca)
    b = tl.load(b_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, a * tl.sigmoid(b), mask=masca)


@triton.jit
def _kernel_alt_nume(a_ptr, b_ptr, iesire_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(iesire_ptr + offsets, tl.load(a_ptr + offsets), mask=offsets < n)


@triton.jit
def _kernel_cu_torch(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    masca = offsets < n
    a = tl.load(a_ptr + offsets, mask=masca)
    tl.store(iesire_ptr + offsets, torch.sigmoid(a), mask=masca)


@triton.jit
def _kernel_gol(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
    pass


def test_ex2_accepta_kerneluri_corecte():
    assert cap03.exercitiul_2(_kernel_corect)
    assert cap03.exercitiul_2(_kernel_cu_exp)


@pytest.mark.parametrize(
    "kernel, fragment",
    [
        (_kernel_gol, "n-a scris nimic"),
        (_kernel_fara_masca_la_scriere, "după sfârșitul"),
        (_kernel_fara_program_id, "doar primul bloc"),
        (_kernel_fara_a, "lipsește înmulțirea cu a"),
        (_kernel_formula_gresita, "Valorile diferă"),
        (_kernel_alt_nume, "exact parametrii"),
        (_kernel_cu_torch, "n-a rulat"),
        (cap03.referinta_swiglu, "nu un kernel Triton"),
        (None, "None"),
    ],
)
def test_ex2_respinge_greselile_tipice(kernel, fragment):
    rezultat = cap03.exercitiul_2(kernel)
    assert not rezultat
    assert fragment in rezultat.mesaj


# --- Exercițiul 3 -----------------------------------------------------------------------------


def test_ex3_accepta_valori_exacte_si_rotunjite():
    assert cap03.exercitiul_3(dict(cap03.ACCELERARI_ASTEPTATE))
    assert cap03.exercitiul_3({"A": 1, "B": 5, "C": 1, "D": 2, "E": 1.5})
    assert cap03.exercitiul_3({"A": 1.1, "B": 4.5, "C": 0.9, "D": 2.2, "E": 2})


def test_ex3_respinge_cu_explicatie_pe_functie():
    rezultat = cap03.exercitiul_3({"A": 1, "B": 5, "C": 4, "D": 2, "E": 1.7})
    assert not rezultat
    assert "C:" in rezultat.mesaj and "limitat de calcul" in rezultat.mesaj
    assert "B:" not in rezultat.mesaj
    rezultat = cap03.exercitiul_3({"A": 1, "B": 2, "C": 1, "D": 4, "E": 1.7})
    assert "B:" in rezultat.mesaj and "D:" in rezultat.mesaj


@pytest.mark.parametrize(
    "predictii, fragment",
    [
        ([1, 5, 1, 2, 1.7], "dicționar"),
        ({"A": 1, "B": 5}, "Lipsesc"),
        ({"A": 1, "B": 5, "C": 1, "D": 2, "E": "mult"}, "număr"),
        ({"A": 0, "B": 5, "C": 1, "D": 2, "E": 1.7}, "pozitiv"),
        ({"A": None, "B": 5, "C": 1, "D": 2, "E": 1.7}, "n-ai completat"),
    ],
)
def test_ex3_respinge_raspunsuri_malformate(predictii, fragment):
    rezultat = cap03.exercitiul_3(predictii)
    assert not rezultat and fragment in rezultat.mesaj


def test_ex3_functiile_dau_aceleasi_valori_compilate():
    for litera, functie in cap03.FUNCTII_DE_PREZIS.items():
        x, y = cap03.intrari_pentru(litera, 4096, "cpu")
        torch.testing.assert_close(torch.compile(functie, dynamic=False)(x, y), functie(x, y), rtol=1e-4, atol=1e-3)
