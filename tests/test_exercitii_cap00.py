"""Verificările capitolului 00 acceptă toate răspunsurile corecte și le resping, cu explicații,
pe cele greșite."""

import math
import statistics
import time

import pytest

from curs_compilare.exercitii import cap00


def _neimplementat(*_):
    raise NotImplementedError


# --- Exercițiul 1 ------------------------------------------------------------------------------


def corect_total_impartit(lanseaza, sincronizeaza, repetari):
    lanseaza()
    sincronizeaza()
    start = time.perf_counter()
    for _ in range(repetari):
        lanseaza()
    sincronizeaza()
    return (time.perf_counter() - start) / repetari


def corect_mediana_fara_incalzire(lanseaza, sincronizeaza, repetari):
    timpi = []
    for _ in range(repetari):
        start = time.perf_counter()
        lanseaza()
        sincronizeaza()
        timpi.append(time.perf_counter() - start)
    return statistics.median(timpi)


def gresit_fara_sincronizare(lanseaza, sincronizeaza, repetari):
    lanseaza()
    start = time.perf_counter()
    for _ in range(repetari):
        lanseaza()
    return (time.perf_counter() - start) / repetari


def gresit_sincronizare_dupa_ceas(lanseaza, sincronizeaza, repetari):
    lanseaza()
    sincronizeaza()
    start = time.perf_counter()
    for _ in range(repetari):
        lanseaza()
    durata = time.perf_counter() - start
    sincronizeaza()
    return durata / repetari


def gresit_cu_compilarea(lanseaza, sincronizeaza, repetari):
    start = time.perf_counter()
    for _ in range(repetari):
        lanseaza()
    sincronizeaza()
    return (time.perf_counter() - start) / repetari


def gresit_total(lanseaza, sincronizeaza, repetari):
    lanseaza()
    sincronizeaza()
    start = time.perf_counter()
    for _ in range(repetari):
        lanseaza()
    sincronizeaza()
    return time.perf_counter() - start


def gresit_milisecunde(lanseaza, sincronizeaza, repetari):
    return corect_total_impartit(lanseaza, sincronizeaza, repetari) * 1000


@pytest.mark.parametrize("solutie", [corect_total_impartit, corect_mediana_fara_incalzire])
def test_exercitiul_1_accepta_solutiile_corecte(solutie):
    r = cap00.exercitiul_1(solutie)
    assert r, r.mesaj


@pytest.mark.parametrize(
    "gresit, fragment",
    [
        (_neimplementat, "n-ai scris soluția"),
        (gresit_fara_sincronizare, "sincronizeaza()"),
        (gresit_sincronizare_dupa_ceas, "înainte ca GPU-ul să termine"),
        (gresit_cu_compilarea, "primul apel"),
        (gresit_total, "timpul total"),
        (gresit_milisecunde, "milisecunde"),
        (lambda *a: None, "None"),
    ],
)
def test_exercitiul_1_respinge_greselile(gresit, fragment):
    r = cap00.exercitiul_1(gresit)
    assert not r
    assert fragment in r.mesaj, r.mesaj


# --- Exercițiul 2 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "solutie",
    [
        lambda x, t: 2 * x.numel() * x.element_size() / t / 1e9,
        lambda x, t: (x.nbytes + x.nbytes) / (t * 1e9),
        lambda x, t: 2 * x.untyped_storage().nbytes() / t * 1e-9,
    ],
)
def test_exercitiul_2_accepta_solutiile_corecte(solutie):
    r = cap00.exercitiul_2(solutie)
    assert r, r.mesaj


@pytest.mark.parametrize(
    "gresit, fragment",
    [
        (lambda x, t: x.numel() * x.element_size() / t / 1e9, "doar citirea"),
        (lambda x, t: 2 * x.numel() / t / 1e9, "elemente, nu octeți"),
        (lambda x, t: 2 * x.numel() * x.element_size() / t / 2**30, "GiB"),
        (lambda x, t: 2 * x.numel() * x.element_size() / t, "octeți pe secundă"),
        (lambda x, t: 2 * x.numel() * x.element_size() / (t * 1000) / 1e9, "1000 de ori prea mic"),
        (lambda x, t: 3 * x.numel() * x.element_size() / t / 1e9, "trebuia"),
        (lambda x, t: "mult", "număr"),
        (_neimplementat, "n-ai scris soluția"),
    ],
)
def test_exercitiul_2_respinge_greselile(gresit, fragment):
    r = cap00.exercitiul_2(gresit)
    assert not r
    assert fragment in r.mesaj, r.mesaj


# --- Exercițiul 3 ------------------------------------------------------------------------------


def prag_formula(prima, eager, compilat):
    if prima <= eager:
        return 1
    if compilat >= eager:
        return None
    return max(1, math.ceil((prima - compilat) / (eager - compilat)))


def prag_bucla(prima, eager, compilat):
    if prima > eager and compilat >= eager:
        return math.inf
    n = 1
    while prima + (n - 1) * compilat > n * eager:
        n += 1
    return n


def prag_float(prima, eager, compilat):
    r = prag_formula(prima, eager, compilat)
    return None if r is None else float(r)


@pytest.mark.parametrize("solutie", [prag_formula, prag_bucla, prag_float])
def test_exercitiul_3_accepta_solutiile_corecte(solutie):
    r = cap00.exercitiul_3(solutie)
    assert r, r.mesaj


def _fara_niciodata(prima, eager, compilat):
    if prima <= eager:
        return 1
    if compilat >= eager:
        return 10**6
    return max(1, math.ceil((prima - compilat) / (eager - compilat)))


@pytest.mark.parametrize(
    "gresit, fragment",
    [
        (lambda p, e, c: None if prag_formula(p, e, c) is None else prag_formula(p, e, c) - 1, "cu una prea puțin"),
        (lambda p, e, c: None if c >= e else math.ceil(p / (e - c)), "n − 1"),
        (lambda p, e, c: None if c >= e else (p - c) / (e - c), "întreg"),
        (_fara_niciodata, "None"),
        (lambda p, e, c: None, "ai întors None"),
        (_neimplementat, "n-ai scris soluția"),
    ],
)
def test_exercitiul_3_respinge_greselile(gresit, fragment):
    r = cap00.exercitiul_3(gresit)
    assert not r
    assert fragment in r.mesaj, r.mesaj
