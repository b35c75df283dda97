"""Verificările capitolului 00 acceptă răspunsurile corecte (și pe cele scrise altfel decât
soluția) și le resping, cu explicația potrivită, pe cele greșite: stub, None, tip greșit,
excepție, răspuns scris pe de rost, aproape-corect, ocolirea lecției, valori absurde, bucle
fără sfârșit (și într-un `try/except:` gol).

Cele mai multe teste ale exercițiului 1 rulează pe un ceas virtual (`time.perf_counter` și
`time.sleep` înlocuite): GPU-ul simulat „lucrează” fără să doarmă, iar timpii sunt exacți, deci
diagnosticul nu depinde de cât de ocupată e mașina. Câteva teste rulează pe ceasul adevărat."""

import math
import statistics
import time

import numpy as np
import pytest
import torch

from curs_compilare import amortizare
from curs_compilare.exercitii import cap00
from curs_compilare.masurare import GPUSimulat, prag_rentabilitate


def _neimplementat(*_):
    raise NotImplementedError


def _bucla_infinita_cu_except_gol(*_):
    while True:
        try:
            while True:
                pass
        except:  # noqa: E722 — exact ce ar scrie un cursant
            pass


class _CeasVirtual:
    """Un ceas care avansează doar când cineva „doarme” (și cu o microsecundă la fiecare citire,
    ca buclele de așteptare activă să se termine)."""

    def __init__(self):
        self.acum = 1000.0

    def perf_counter(self):
        self.acum += 1e-6
        return self.acum

    def perf_counter_ns(self):
        return int(self.perf_counter() * 1e9)

    def sleep(self, secunde):
        self.acum += max(0.0, secunde)


@pytest.fixture
def ceas_virtual(monkeypatch):
    ceas = _CeasVirtual()
    monkeypatch.setattr(time, "perf_counter", ceas.perf_counter)
    monkeypatch.setattr(time, "perf_counter_ns", ceas.perf_counter_ns)
    monkeypatch.setattr(time, "sleep", ceas.sleep)
    return ceas


# --- Exercițiul 1 ------------------------------------------------------------------------------


def corect_total_impartit(lanseaza, sincronizeaza, repetari):
    lanseaza()
    sincronizeaza()
    start = time.perf_counter()
    for _ in range(repetari):
        lanseaza()
    sincronizeaza()
    return (time.perf_counter() - start) / repetari


def corect_mediana_cu_incalzire(lanseaza, sincronizeaza, repetari):
    lanseaza()
    sincronizeaza()
    timpi = []
    for _ in range(repetari):
        start = time.perf_counter()
        lanseaza()
        sincronizeaza()
        timpi.append(time.perf_counter() - start)
    return statistics.median(timpi)


def corect_mediana_fara_incalzire(lanseaza, sincronizeaza, repetari):
    timpi = []
    for _ in range(repetari):
        start = time.perf_counter()
        lanseaza()
        sincronizeaza()
        timpi.append(time.perf_counter() - start)
    return statistics.median(timpi)


def corect_ns_doua_incalziri(lanseaza, sincronizeaza, repetari):
    lanseaza()
    lanseaza()
    sincronizeaza()
    start = time.perf_counter_ns()
    for _ in range(repetari):
        lanseaza()
    sincronizeaza()
    return (time.perf_counter_ns() - start) / repetari / 1e9


def corect_minim_numpy(lanseaza, sincronizeaza, repetari):
    lanseaza()
    sincronizeaza()
    timpi = []
    for _ in range(repetari):
        start = time.perf_counter()
        lanseaza()
        sincronizeaza()
        timpi.append(time.perf_counter() - start)
    return np.float64(min(timpi))


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


def gresit_fara_sincronizare_la_pornire(lanseaza, sincronizeaza, repetari):
    """Capcana din text: încălzirea fără sincronizare după ea."""
    lanseaza()
    start = time.perf_counter()
    for _ in range(repetari):
        lanseaza()
    sincronizeaza()
    return (time.perf_counter() - start) / repetari


def gresit_sincronizare_inaintea_incalzirii(lanseaza, sincronizeaza, repetari):
    sincronizeaza()
    lanseaza()
    start = time.perf_counter()
    for _ in range(repetari):
        lanseaza()
    sincronizeaza()
    return (time.perf_counter() - start) / repetari


def gresit_cu_compilarea(lanseaza, sincronizeaza, repetari):
    sincronizeaza()
    start = time.perf_counter()
    for _ in range(repetari):
        lanseaza()
    sincronizeaza()
    return (time.perf_counter() - start) / repetari


def gresit_media_cu_primul_apel(lanseaza, sincronizeaza, repetari):
    timpi = []
    for _ in range(repetari):
        start = time.perf_counter()
        lanseaza()
        sincronizeaza()
        timpi.append(time.perf_counter() - start)
    return sum(timpi) / len(timpi)


def gresit_total(lanseaza, sincronizeaza, repetari):
    return corect_total_impartit(lanseaza, sincronizeaza, repetari) * repetari


def gresit_milisecunde(lanseaza, sincronizeaza, repetari):
    return corect_total_impartit(lanseaza, sincronizeaza, repetari) * 1000


def gresit_microsecunde(lanseaza, sincronizeaza, repetari):
    return corect_total_impartit(lanseaza, sincronizeaza, repetari) * 1e6


def aproape_corect_un_factor(lanseaza, sincronizeaza, repetari):
    """Împarte la jumătate din repetări: un factor constant, nu lucrul rămas de la încălzire."""
    return corect_total_impartit(lanseaza, sincronizeaza, repetari) * 2


def gresit_prea_putine_lansari(lanseaza, sincronizeaza, repetari):
    lanseaza()
    sincronizeaza()
    return 0.003


def pe_de_rost(lanseaza, sincronizeaza, repetari):
    """Face tot ce trebuie, dar întoarce un număr scris de mână."""
    corect_total_impartit(lanseaza, sincronizeaza, repetari)
    return 0.0025


def ocolire_simulatorul_cursului(lanseaza, sincronizeaza, repetari):
    """Citește durata GPU-ului simulat din curs în loc s-o măsoare."""
    corect_total_impartit(lanseaza, sincronizeaza, repetari)
    return GPUSimulat().durata_lucrare_s


def ocolire_atribut(lanseaza, sincronizeaza, repetari):
    return lanseaza.__self__.durata_lucrare_s


def negativ(lanseaza, sincronizeaza, repetari):
    return -corect_total_impartit(lanseaza, sincronizeaza, repetari)


def exceptie(lanseaza, sincronizeaza, repetari):
    timpi = []
    return timpi[repetari]


@pytest.mark.parametrize(
    "solutie",
    [corect_total_impartit, corect_mediana_cu_incalzire, corect_mediana_fara_incalzire, corect_ns_doua_incalziri,
     corect_minim_numpy],
)
def test_exercitiul_1_accepta_solutiile_corecte(ceas_virtual, solutie):
    r = cap00.exercitiul_1(solutie)
    assert r, r.mesaj
    assert "așteaptă GPU-ul" in r.mesaj


@pytest.mark.parametrize(
    "gresit, fragment",
    [
        (_neimplementat, "n-ai scris soluția"),
        (lambda *a: None, "ai întors None"),
        (lambda *a: "0.003", "trebuia un număr"),
        (lambda *a: float("nan"), "nan"),
        (exceptie, "IndexError"),
        (negativ, "pozitiv"),
        (gresit_fara_sincronizare, "N-ai apelat niciodată `sincronizeaza()`"),
        (gresit_sincronizare_dupa_ceas, "înainte ca GPU-ul să termine"),
        (gresit_fara_sincronizare_la_pornire, "fără să sincronizezi după încălzire"),
        (gresit_sincronizare_inaintea_incalzirii, "fără să sincronizezi după încălzire"),
        (gresit_cu_compilarea, "primul apel, care compilează"),
        (gresit_media_cu_primul_apel, "primul apel, care compilează"),
        (gresit_total, "timpul total al buclei"),
        (gresit_milisecunde, "milisecunde"),
        (gresit_microsecunde, "microsecunde"),
        (gresit_prea_putine_lansari, "argumentul `repetari`"),
        (pe_de_rost, "pe al doilea"),
        (ocolire_simulatorul_cursului, "pe al doilea"),
        (ocolire_atribut, "AttributeError"),
    ],
)
def test_exercitiul_1_respinge_greselile(ceas_virtual, gresit, fragment):
    r = cap00.exercitiul_1(gresit)
    assert not r
    assert fragment in r.mesaj, r.mesaj
    assert "Traceback" not in r.mesaj


def test_exercitiul_1_aproape_corect_nu_primeste_diagnosticul_capcanei(ceas_virtual):
    """Un factor constant (2×) nu e lucrul rămas de la încălzire (de 2,2–4,4 ori, diferit pe cele
    două GPU-uri): primește mesajul general, nu pe cel despre sincronizarea de la pornire."""
    r = cap00.exercitiul_1(aproape_corect_un_factor)
    assert not r
    assert "Verifică cele trei reparații" in r.mesaj, r.mesaj
    assert "fără să sincronizezi" not in r.mesaj and "compilează" not in r.mesaj


def test_exercitiul_1_duratele_se_schimba_de_la_o_rulare_la_alta(ceas_virtual):
    vazute = set()

    def spion(lanseaza, sincronizeaza, repetari):
        valoare = corect_total_impartit(lanseaza, sincronizeaza, repetari)
        vazute.add(round(valoare, 6))
        return valoare

    for _ in range(3):
        assert cap00.exercitiul_1(spion)
    assert len(vazute) == 6


def test_exercitiul_1_simulatorul_nu_are_atribute_cu_durata(ceas_virtual):
    def cauta(lanseaza, sincronizeaza, repetari):
        for functie in (lanseaza, sincronizeaza):
            assert not hasattr(functie, "__self__")
            assert not any("lucr" in nume or "durat" in nume for nume in dir(functie))
        return corect_total_impartit(lanseaza, sincronizeaza, repetari)

    r = cap00.exercitiul_1(cauta)
    assert r, r.mesaj


def test_exercitiul_1_pe_ceasul_adevarat():
    """Pe ceasul adevărat: soluția de referință trece, iar capcana e respinsă (pe o mașină foarte
    ocupată, verificarea poate spune că n-a putut măsura curat, dar nu că e corectă)."""
    r = cap00.exercitiul_1(corect_total_impartit)
    assert r, r.mesaj
    r = cap00.exercitiul_1(gresit_fara_sincronizare_la_pornire)
    assert not r
    assert "sincroniz" in r.mesaj or "N-am putut măsura curat" in r.mesaj, r.mesaj


def test_exercitiul_1_masina_ocupata_se_spune_ca_atare(monkeypatch, ceas_virtual):
    """Dacă întârzierile văzute în așteptări explică abaterea la fiecare încercare, mesajul
    spune că mașina e ocupată (nu numește o greșeală); o greșeală mare rămâne greșeală."""
    original = cap00._asteapta_pana_la

    def intarziat(moment):
        if moment - time.perf_counter() < 1e-3:  # lansările rămân exacte
            return original(moment)
        original(moment)
        time.sleep(0.002)
        return 0.002

    monkeypatch.setattr(cap00, "_asteapta_pana_la", intarziat)
    r = cap00.exercitiul_1(corect_mediana_cu_incalzire)
    assert not r and "N-am putut măsura curat" in r.mesaj, r.mesaj
    r = cap00.exercitiul_1(gresit_total)
    assert not r and "timpul total" in r.mesaj, r.mesaj


@pytest.mark.parametrize("gresit", [_bucla_infinita_cu_except_gol, lambda l, s, n: [l() for _ in range(10**6)]])
def test_exercitiul_1_bucla_infinita_si_raspunsul_lent_se_opresc(monkeypatch, gresit):
    monkeypatch.setattr(cap00, "LIMITA_APEL_1_S", 0.5)
    inceput = time.perf_counter()
    r = cap00.exercitiul_1(gresit)
    assert not r
    assert "n-a terminat" in r.mesaj, r.mesaj
    assert time.perf_counter() - inceput < 5


# --- Exercițiul 2 ------------------------------------------------------------------------------


def corect_octeti(x, t):
    return 2 * x.numel() * x.element_size() / t / 1e9


@pytest.mark.parametrize(
    "solutie",
    [
        corect_octeti,
        lambda x, t: (x.nbytes + x.nbytes) / (t * 1e9),
        lambda x, t: 2 * x.untyped_storage().nbytes() / t * 1e-9,
        lambda x, t: 2 * x.numel() * x.itemsize / t / 1e9,
        lambda x, t: np.float64(2 * x.nbytes / t / 1e9),
        lambda x, t: np.float32(2 * x.nbytes / t / 1e9),
        lambda x, t: torch.tensor(2 * x.nbytes / t / 1e9, dtype=torch.float64),
        lambda x, t: torch.tensor([2 * x.nbytes / t / 1e9]),
    ],
    ids=["octeti", "nbytes", "storage", "itemsize", "numpy64", "numpy32", "tensor64", "tensor1"],
)
def test_exercitiul_2_accepta_solutiile_corecte(solutie):
    r = cap00.exercitiul_2(solutie)
    assert r, r.mesaj
    assert "octeții citiți și scriși" in r.mesaj


@pytest.mark.parametrize(
    "gresit, fragment",
    [
        (_neimplementat, "n-ai scris soluția"),
        (lambda x, t: None, "ai întors None"),
        (lambda x, t: "mult", "trebuia un număr"),
        (lambda x, t: torch.full((3,), 1.0), "tensor de forma (3,)"),
        (lambda x, t: torch.tensor(1.0, device="meta"), "meta"),
        (lambda x, t: float("nan"), "nan"),
        (lambda x, t: x.nu_exista, "AttributeError"),
        (lambda x, t: 42.0, "același număr"),
        (lambda x, t: x.numel() * x.element_size() / t / 1e9, "doar citirea"),
        (lambda x, t: 2 * x.numel() / t / 1e9, "elemente, nu octeți"),
        (lambda x, t: 16 * x.nbytes / t / 1e9, "biți"),
        (lambda x, t: 2 * x.nbytes / t / 2**30, "GiB"),
        (lambda x, t: 2 * x.nbytes / t, "octeți pe secundă"),
        (lambda x, t: 2 * x.nbytes / (t * 1000) / 1e9, "1 000 de ori prea mic"),
        (lambda x, t: 2 * x.nbytes / t / 1e6, "1 000 de ori prea mare"),
        (lambda x, t: int(2 * x.nbytes / t / 1e9), "număr întreg"),
        (lambda x, t: round(2 * x.nbytes / t / 1e9), "număr întreg"),
        (lambda x, t: torch.tensor(2 * x.nbytes / t / 1e9).long(), "număr întreg"),
        (lambda x, t: np.float16(2 * x.nbytes / t / 1e9), "float16"),
        (lambda x, t: torch.tensor(2 * x.nbytes / t / 1e9, dtype=torch.bfloat16), "bfloat16"),
    ],
)
def test_exercitiul_2_respinge_greselile(gresit, fragment):
    r = cap00.exercitiul_2(gresit)
    assert not r
    assert fragment in r.mesaj, r.mesaj
    assert "Traceback" not in r.mesaj


@pytest.mark.parametrize("factor", [1.01, 3 / 2])
def test_exercitiul_2_aproape_corect_primeste_cifrele_nu_un_diagnostic(factor):
    r = cap00.exercitiul_2(lambda x, t: factor * 2 * x.nbytes / t / 1e9)
    assert not r
    assert "dar trebuia" in r.mesaj, r.mesaj
    diagnostice = ("Ai numărat", "Ai întors un număr de tipul", "Ai rotunjit", "GiB", "același număr", "octeți pe secundă")
    assert not any(d in r.mesaj for d in diagnostice), r.mesaj


def test_exercitiul_2_float16_nu_primeste_sfatul_despre_octeti():
    """Un rezultat float16 corect ca formulă e respins pentru tip (precizie, depășire la 65 504),
    nu pentru o numărătoare greșită a octeților."""
    r = cap00.exercitiul_2(lambda x, t: torch.tensor(2 * x.nbytes / t / 1e9, dtype=torch.float16))
    assert not r
    assert "float16" in r.mesaj and "65 504" in r.mesaj
    assert "Ai numărat" not in r.mesaj and "verifică împărțirile" not in r.mesaj


def test_exercitiul_2_intrarile_se_schimba_de_la_o_rulare_la_alta():
    vazute = []

    def spion(x, t):
        vazute.append((tuple(x.shape), x.dtype, t))
        return corect_octeti(x, t)

    assert cap00.exercitiul_2(spion)
    assert cap00.exercitiul_2(spion)
    assert len(vazute) == 12 and vazute[:6] != vazute[6:]
    assert torch.float32 in {d for _, d, _ in vazute[:6]}


@pytest.mark.parametrize("gresit", [_bucla_infinita_cu_except_gol, lambda x, t: time.sleep(30)])
def test_exercitiul_2_bucla_infinita_se_opreste(monkeypatch, gresit):
    monkeypatch.setattr(cap00, "LIMITA_APEL_2_S", 0.3)
    inceput = time.perf_counter()
    r = cap00.exercitiul_2(gresit)
    assert not r and "n-a terminat" in r.mesaj, r.mesaj
    assert time.perf_counter() - inceput < 3


# --- Exercițiul 3 ------------------------------------------------------------------------------


def prag_formula(prima, eager, compilat):
    castig = eager - compilat
    if castig < 0:
        return None
    if castig == 0:
        return 1 if prima <= eager else None
    return max(1, math.ceil((prima - compilat) / castig))


def prag_bucla(prima, eager, compilat):
    if compilat > eager or (compilat == eager and prima > eager):
        return math.inf
    n = 1
    while prima + (n - 1) * compilat > n * eager:
        n += 1
    return n


def prag_primul_apel_separat(prima, eager, compilat):
    """Primul apel separat de celelalte: după el, fiecare din cele n − 1 apeluri câștigă
    t_e − t_c, iar primul a pierdut t_prima − t_e."""
    if compilat > eager or (compilat == eager and prima > eager):
        return None
    if compilat == eager:
        return 1
    return max(1, 1 + math.ceil((prima - eager) / (eager - compilat)))


def prag_float(prima, eager, compilat):
    r = prag_formula(prima, eager, compilat)
    return None if r is None else float(r)


def prag_numpy(prima, eager, compilat):
    r = prag_formula(prima, eager, compilat)
    return None if r is None else np.int64(r)


def prag_tensor(prima, eager, compilat):
    r = prag_formula(prima, eager, compilat)
    return None if r is None else torch.tensor(r)


@pytest.mark.parametrize("solutie", [prag_formula, prag_bucla, prag_primul_apel_separat, prag_float, prag_numpy, prag_tensor])
def test_exercitiul_3_accepta_solutiile_corecte(solutie):
    r = cap00.exercitiul_3(solutie)
    assert r, r.mesaj
    assert "cazurile limită" in r.mesaj


def _modelul_vechi(prima, eager, compilat):
    """Primul apel mai ieftin dădea 1, chiar dacă varianta compilată e mai lentă pe apel."""
    if prima <= eager:
        return 1
    if compilat >= eager:
        return None
    return max(1, math.ceil((prima - compilat) / (eager - compilat)))


def _fara_caz_special(prima, eager, compilat):
    n = 1
    while prima + (n - 1) * compilat > n * eager:
        n += 1
    return n


def _cu_pragul(functie):
    def gresit(prima, eager, compilat):
        if prag_formula(prima, eager, compilat) is None:
            return None
        return functie(prima, eager, compilat)

    return gresit


@pytest.mark.parametrize(
    "gresit, fragment",
    [
        (_neimplementat, "n-ai scris soluția"),
        (lambda p, e, c: None, "ai întors None"),
        (lambda p, e, c: "5", "trebuia un număr"),
        (lambda p, e, c: True, "bool"),
        (lambda p, e, c: [1, 2], "list"),
        (lambda p, e, c: float("nan"), "nan"),
        (lambda p, e, c: 1 / 0, "ZeroDivisionError"),
        (lambda p, e, c: 7, "Modelul cursului"),
        (_cu_pragul(lambda p, e, c: max(1, math.ceil(p / (e - c))) if e > c else 1), "n − 1 apeluri rapide"),
        (_cu_pragul(lambda p, e, c: max(1, math.floor((p - c) / (e - c))) if e > c else 1), "rotunjești în jos"),
        (_cu_pragul(lambda p, e, c: max(1, round((p - c) / (e - c))) if e > c else 1), "`round`"),
        (_cu_pragul(lambda p, e, c: math.floor((p - c) / (e - c)) + 1 if e > c else 1), "≤, nu <"),
        (_cu_pragul(lambda p, e, c: max(1, math.ceil((p - e) / (e - c))) if e > c else 1), "cu primul cu tot"),
        (_cu_pragul(lambda p, e, c: (p - c) / (e - c) if e > c else 1), "întreg"),
        (_modelul_vechi, "de acolo încolo"),
        (lambda p, e, c: 10**6 if prag_formula(p, e, c) is None else prag_formula(p, e, c), "1 000 000"),
        (lambda p, e, c: None if c >= e else prag_formula(p, e, c), "trebuia 1"),
        (lambda p, e, c: prag_rentabilitate(p, e, c), "funcția cursului"),
        (lambda p, e, c: amortizare.apel_de_amortizare(e, e, p, c), "funcția cursului"),
    ],
)
def test_exercitiul_3_respinge_greselile(gresit, fragment):
    r = cap00.exercitiul_3(gresit)
    assert not r
    assert fragment in r.mesaj, r.mesaj
    assert "Traceback" not in r.mesaj


@pytest.mark.parametrize("factor", [1.01, 0.99])
def test_exercitiul_3_aproape_corect_nu_primeste_un_diagnostic_anume(factor):
    """Un răspuns greșit cu 1% primește totalurile (fapte), nu „ai uitat n − 1” sau „rotunjește”."""
    r = cap00.exercitiul_3(_cu_pragul(lambda p, e, c: prag_formula(p * factor, e, c)))
    assert not r
    assert "Modelul cursului" in r.mesaj, r.mesaj
    for diagnostic in ("n − 1 apeluri rapide", "rotunjești", "≤, nu <", "cu primul cu tot"):
        assert diagnostic not in r.mesaj


def test_exercitiul_3_bucla_fara_caz_special_primeste_explicatia(monkeypatch):
    monkeypatch.setattr(cap00, "LIMITA_APEL_3_S", 0.3)
    r = cap00.exercitiul_3(_fara_caz_special)
    assert not r
    # fie capcana (1 în loc de None), fie bucla care nu se oprește, după ordinea cazurilor
    assert "de acolo încolo" in r.mesaj or "tratează separat" in r.mesaj, r.mesaj


@pytest.mark.parametrize("gresit", [_bucla_infinita_cu_except_gol, lambda p, e, c: time.sleep(30)])
def test_exercitiul_3_bucla_infinita_se_opreste(monkeypatch, gresit):
    monkeypatch.setattr(cap00, "LIMITA_APEL_3_S", 0.3)
    inceput = time.perf_counter()
    r = cap00.exercitiul_3(gresit)
    assert not r and "n-a terminat" in r.mesaj, r.mesaj
    assert time.perf_counter() - inceput < 3


def test_exercitiul_3_timpul_total_e_limitat(monkeypatch):
    """Un răspuns corect, dar lent (0,2 s pe apel), înmulțit cu 22 de apeluri, se oprește la
    limita întregii verificări, nu după 22 × limita unui apel."""
    monkeypatch.setattr(cap00, "LIMITA_VERIFICARE_3_S", 1.0)

    def lent(p, e, c):
        time.sleep(0.2)
        return prag_formula(p, e, c)

    inceput = time.perf_counter()
    r = cap00.exercitiul_3(lent)
    assert not r and "Verificarea a depășit" in r.mesaj, r.mesaj
    assert time.perf_counter() - inceput < 3


def test_exercitiul_3_foloseste_modelul_unic():
    """Cazul care a schimbat modelul: primul apel mai ieftin, dar compilatul mai lent pe apel."""
    assert amortizare.apel_de_amortizare(0.003, 0.003, 0.002, 0.004) is None
    assert prag_formula(0.002, 0.003, 0.004) is None
    cazuri = cap00._cazuri_amortizare(cap00.generator_aleator(1))
    assert len(cazuri) == 22
    assert any(c.fel == "capcana" and c.asteptat is None and c.prima < c.eager for c in cazuri)
    assert sum(c.fel == "egalitate" for c in cazuri) == 2
    for caz in cazuri:
        assert caz.asteptat == prag_rentabilitate(caz.prima, caz.eager, caz.compilat)
        if caz.fel == "egalitate":  # totalurile sunt exact egale la pragul găsit
            n = caz.asteptat
            assert amortizare.cost_total(caz.prima, caz.compilat, n) == amortizare.cost_total(caz.eager, caz.eager, n)
