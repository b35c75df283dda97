"""Verificările capitolului 10 (FlexAttention), atacate: pentru fiecare exercițiu, ciotul, None, tipul
greșit, semnătura greșită, apoi greșelile de fiecare fel, și soluțiile corecte, câte două formulări.

Exercițiul 1 (fereastră cu prefix): doar fereastra cauzală (fără prefix), fereastra și prefixul cu unu
mai mari, fără fereastră, doar cauzal, valori scrise de mână, `q_idx` și `kv_idx` inversate, fereastra
de ambele părți, `if` / `and` / `.item()` pe tensori, un rezultat care nu e bool sau nu e un singur
element, un bool Python, masca densă deghizată (în închidere, în valoarea implicită, într-o globală,
într-un `functools.partial`, într-o închidere imbricată, într-un obiect chemabil, citită printr-un modul),
referința verificării (chemată sau întoarsă), o buclă fără sfârșit.
Exercițiul 2 (softcap): scorul neschimbat, limita scrisă de mână, `tanh(score)`, fără împărțire, fără
înmulțire, `clamp`, `math.tanh`, `if`, alt `dtype`, altă formă, scorul ignorat, un număr Python, un
rezultat care depinde de poziții, referința, un mask_mod în loc de score_mod.
Exercițiul 3 (documente): funcția mask_mod sau masca densă în loc de BlockMask, lungimea rotunjită,
doar cauzal, fără cauzalitate, granițele cu unu greșite, masca densă deghizată pe blocuri (`noop_mask`,
`from_kv_blocks`), un tabel S × S, blocuri mai mari, `if` în mask_mod, referința, o mască pe care
Inductor n-o poate compila (`searchsorted` în mask_mod), granițele ca constante Python (recompilarea).
Plus: o celulă de mai sus care a schimbat atitudinea lui Dynamo, drumul de depanare al lui FlexAttention
și precizia produselor float32 nu strică verificarea, iar verificarea le lasă cum erau.

Și clasele găsite după ce verificările au fost atacate, fiecare pe mai multe semințe: o mască sau un
score_mod care depinde de lot (`b`) sau de cap (`h`), greșit doar departe de diagonală (după multe
blocuri), două greșeli cu unu (nu „valori scrise de mână”); în exercițiul 3, masca fără `device=`,
`suppress_errors` pus de funcția ta sau de o celulă de mai sus, o întrerupere a grafului în mask_mod, un
graf care depinde de numărul documentelor (a doua împărțire are mereu alt număr), o funcție lentă (limita
unei compilări, ca pentru `create_block_mask(..., _compile=True)`); verificarea nu mai ține o referință
de chemat.

Exercițiul 3 compilează `flex_attention` doar pentru răspunsurile care ajung la ultimul pas (soluțiile,
masca necompilabilă și granițele-constante): celelalte greșeli se opresc înainte. Pasul acela folosește o
lungime fixă (`LUNGIME_RECOMPILARE`), iar testele care compilează un graf ce depinde de împărțire au o
sămânță fixă: după prima rulare pe o mașină, kernel-ele vin din cache-ul lui Inductor."""

import functools
import math
import time
import types

import pytest
import torch
from torch.nn.attention.flex_attention import (
    BlockMask,
    and_masks,
    create_block_mask,
    create_mask,
    noop_mask,
    or_masks,
)

from curs_compilare.exercitii import cap10
from curs_compilare.exercitii.baza import NESCRIS
from verificari_comune import acceptat as _acceptat
from verificari_comune import controleaza_formatul
from verificari_comune import respins as _respins

#: Cât are voie să dureze, pe procesorul mașinii de teste, o verificare cu răspunsul corect.
LIMITA_1_S = 20.0
LIMITA_2_S = 20.0
LIMITA_3_S = 60.0


@pytest.fixture(autouse=True)
def mesaje_in_formatul_cursului(monkeypatch):
    """Fiecare mesaj trece prin regulile de format ale cursului și n-are traceback."""
    controleaza_formatul(monkeypatch, cap10)


def _cronometrat(verificare, raspuns, limita_s):
    inceput = time.perf_counter()
    rezultat = verificare(raspuns)
    durata = time.perf_counter() - inceput
    _acceptat(rezultat)
    assert durata < limita_s, f"verificarea a durat {durata:.1f} s, peste {limita_s} s"
    return rezultat


#: Un modul al cursantului (ca unul importat dintr-un fișier al lui), cu tabele în el.
_MODUL_CURSANT = types.ModuleType("tabele_cursant")
_MODUL_CURSANT.masti = {}


def _nescris(*argumente):
    # Scrie aici codul tău.
    raise NotImplementedError


# ---------------------------------------------------------------------------------------------
# Exercițiul 1
# ---------------------------------------------------------------------------------------------


def fereastra_cu_prefix(fereastra, prefix):  # soluția de referință
    def masca(b, h, q_idx, kv_idx):
        in_fereastra = (kv_idx <= q_idx) & (q_idx - kv_idx < fereastra)
        return in_fereastra | (kv_idx < prefix)

    return masca


def cauzala(b, h, q_idx, kv_idx):
    return kv_idx <= q_idx


def cu_and_or_masks(fereastra, prefix):  # alternativă: compusă din măști mici
    def aproape(b, h, q_idx, kv_idx):
        return q_idx - kv_idx < fereastra

    def in_prefix(b, h, q_idx, kv_idx):
        return kv_idx < prefix

    return or_masks(and_masks(cauzala, aproape), in_prefix)


def cu_where(fereastra, prefix):  # alternativă: torch.where și `~`
    return lambda b, h, q, kv: torch.where(kv < prefix, True, ~((kv > q) | (q - kv >= fereastra)))


def _masca_1(conditie):
    """Un răspuns greșit: `conditie(q, kv, fereastra, prefix)` ca mask_mod."""
    def raspuns(fereastra, prefix):
        return lambda b, h, q_idx, kv_idx: conditie(q_idx, kv_idx, fereastra, prefix)

    return raspuns


def _masca_cu_lot(conditie):
    """Un răspuns greșit: `conditie(q, kv, fereastra, prefix, b, h)` ca mask_mod."""
    def raspuns(fereastra, prefix):
        return lambda b, h, q_idx, kv_idx: conditie(q_idx, kv_idx, fereastra, prefix, b, h)

    return raspuns


SEMINTE_1 = ("1", "2", "3", "4", "5")


def test_1_faptele_exercitiului():
    """Masca densă a verificării e masca cerută, pe mărimi mici scrise de mână; cazurile au prefixul 0, fereastra 1,
    un prefix cel puțin cât fereastra, un caz lung (fereastra și prefixul de câteva blocuri) și S care nu e
    multiplu de 128, pe fiecare sămânță."""
    masca = create_mask(fereastra_cu_prefix(3, 2), 1, 1, 6, 6, device="cpu")[0, 0]
    asteptat = torch.tensor([
        [1, 1, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [1, 1, 1, 0, 0, 0],
        [1, 1, 1, 1, 0, 0],
        [1, 1, 1, 1, 1, 0],
        [1, 1, 0, 1, 1, 1],
    ], dtype=torch.bool)
    assert torch.equal(masca, asteptat)
    assert torch.equal(cap10._densa_1(6, 3, 2), asteptat)
    import random

    for semanta in range(200):
        for pe_gpu in (False, True):
            cazuri = cap10._cazuri_1(random.Random(semanta), pe_gpu)
            assert {0} <= {p for _, _, p in cazuri} and 1 in {f for _, f, _ in cazuri}
            assert any(p >= f for _, f, p in cazuri)
            assert all(s % 128 and f >= 1 and f + p < s - 2 for s, f, p in cazuri)
            minim = cap10.LUNGIME_LUNGA["cuda" if pe_gpu else "cpu"][0]
            assert any(s >= minim and f > 256 and p > 128 for s, f, p in cazuri), cazuri


def test_1_solutia_si_alternative():
    _cronometrat(cap10.exercitiul_1, fereastra_cu_prefix, LIMITA_1_S)
    _acceptat(cap10.exercitiul_1(cu_and_or_masks))
    _acceptat(cap10.exercitiul_1(cu_where))


def test_1_ciot_none_tip_gresit_si_semnatura():
    assert cap10.exercitiul_1(_nescris).mesaj == NESCRIS

    def masca_nescrisa(fereastra, prefix):
        def masca(b, h, q_idx, kv_idx):
            # Scrie aici codul tău.
            raise NotImplementedError

        return masca

    assert cap10.exercitiul_1(masca_nescrisa).mesaj == NESCRIS
    _respins(cap10.exercitiul_1(None), "None")
    _respins(cap10.exercitiul_1(5), "int", "fără paranteze")
    _respins(cap10.exercitiul_1(lambda fereastra: None), "semnătura", "2 argumente")
    _respins(cap10.exercitiul_1(lambda f, p: None), "None", "return")
    _respins(cap10.exercitiul_1(lambda f, p: torch.ones(4, 4, dtype=torch.bool)), "tensor", "din indici")
    _respins(cap10.exercitiul_1(lambda f, p: create_block_mask(cauzala, None, None, 256, 256, device="cpu")),
             "`BlockMask`", "mask_mod")
    _respins(cap10.exercitiul_1(lambda f, p: (lambda q_idx, kv_idx: kv_idx <= q_idx)), "patru argumente",
             "(b, h, q_idx, kv_idx)")
    _respins(cap10.exercitiul_1(lambda f, p: (lambda b, h, q, kv=0: kv <= q)), "3 argumente obligatorii")


def test_1_greseli_de_logica():
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: (kv <= q) & (q - kv < f))), "ignoră prefixul")
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: ((kv <= q) & (q - kv <= f)) | (kv < p))),
             "Fereastra ta", "greșeală de o poziție", "(nu `<=`)")
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: ((kv <= q) & (q - kv < f)) | (kv <= p))),
             "Prefixul tău", "greșeală de o poziție", "(nu `<=`)")
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: (kv <= q) | (kv < p))), "ignoră fereastra")
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: kv <= q)), "tot trecutul", "fereastra")
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: ((kv <= q) & (q - kv < 64)) | (kv < 16))),
             "de mână", "`fereastra` și `prefix`")
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: ((q <= kv) & (kv - q < f)) | (q < p))),
             "oglindită", "inversat")
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: ((q - kv).abs() < f) | (kv < p))),
             "ambele părți", "cauzală")
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: (kv <= q) & (q - kv < f) & (kv >= p))),
             "Masca ta diferă", "jetonul")
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: q < 0)), "nicio pereche")


@pytest.mark.parametrize("conditie, cuvinte", [
    (lambda q, kv, f, p, b, h: (((kv <= q) & (q - kv < f)) | (kv < p)) & (b == 0), ("depinde de lot", "b = 1")),
    (lambda q, kv, f, p, b, h: (((kv <= q) & (q - kv < f)) | (kv < p)) | (h > 1), ("depinde de lot", "h = 2")),
], ids=["lotul", "capul"])
def test_1_masca_care_depinde_de_lot_sau_cap_pe_fiecare_samanta(conditie, cuvinte, monkeypatch):
    for seminta in SEMINTE_1:
        monkeypatch.setenv("CURS_SEMINTA", seminta)
        _respins(cap10.exercitiul_1(_masca_cu_lot(conditie)), *cuvinte, "orice lot și orice cap")


def test_1_masca_gresita_doar_departe_de_diagonala_pe_fiecare_samanta(monkeypatch):
    """Prefixul văzut doar de jetoanele din primele 700 de poziții: corect pe secvențe scurte, greșit pe cea
    lungă, care e în fiecare rulare. Cu pragul după orice secvență construită (3 000, 5 000), masca e prinsă
    de încercarea directă, cu indici până la `INDICE_SONDA`."""
    for seminta in SEMINTE_1:
        monkeypatch.setenv("CURS_SEMINTA", seminta)
        # Pe cazul lung (comparat cu masca densă) sau, dacă un caz scurt vine înaintea lui, în încercarea directă.
        mesaj = _respins(cap10.exercitiul_1(_masca_1(
            lambda q, kv, f, p: ((kv <= q) & (q - kv < f)) | ((kv < p) & (q < 700)))), "în prefix")
        assert "Masca ta diferă" in mesaj or "departe de începutul lor" in mesaj, mesaj
        _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: ((kv <= q) & (q - kv < f)) | ((kv < p) & (q < 3000)))),
                 "departe de începutul lor", "e în prefix", "fără praguri scrise de mână")
        _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: ((kv <= q) & (q - kv < f) & (q < 5000)) | (kv < p))),
                 "departe de începutul lor", "e în fereastra lui")


def test_1_doua_greseli_cu_unu_nu_sunt_valori_scrise_de_mana(monkeypatch):
    for seminta in SEMINTE_1:
        monkeypatch.setenv("CURS_SEMINTA", seminta)
        _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: ((kv <= q) & (q - kv <= f)) | (kv <= p))),
                 "două greșeli de câte o poziție", "`<`, nu `<=`", lipsa=("de mână", "nu folosește valorile"))


def test_1_controlul_fluxului_pe_tensori():
    def cu_if(fereastra, prefix):
        def masca(b, h, q_idx, kv_idx):
            if kv_idx < prefix:
                return True
            return (kv_idx <= q_idx) & (q_idx - kv_idx < fereastra)

        return masca

    def cu_and(fereastra, prefix):
        def masca(b, h, q_idx, kv_idx):
            return (kv_idx <= q_idx and q_idx - kv_idx < fereastra) or kv_idx < prefix

        return masca

    def cu_item(fereastra, prefix):
        def masca(b, h, q_idx, kv_idx):
            return torch.tensor(int(q_idx.item()) >= int(kv_idx.item()))

        return masca

    _respins(cap10.exercitiul_1(cu_if), "`if`", "linia", "`&`", "torch.where", "RuntimeError")
    _respins(cap10.exercitiul_1(cu_and), "`and`", "`|`")
    _respins(cap10.exercitiul_1(cu_item), "`.item()`", "un număr Python")
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: True)), "nu un tensor", "`True` sau `False`")


def test_1_rezultat_care_nu_e_bool_sau_nu_e_un_element():
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: (((kv <= q) & (q - kv < f)) | (kv < p)).int())),
             "torch.int32", "nu bool")
    _respins(cap10.exercitiul_1(_masca_1(lambda q, kv, f, p: torch.stack([kv <= q, kv < p]))), "forma (2,)",
             "o singură valoare")


def test_1_masca_densa_deghizata():
    n = 1024
    pozitii = torch.arange(n)

    def tabel(fereastra, prefix):
        q, kv = pozitii[:, None], pozitii[None, :]
        return ((kv <= q) & (q - kv < fereastra)) | (kv < prefix)

    def in_inchidere(fereastra, prefix):
        t = tabel(fereastra, prefix)
        return lambda b, h, q_idx, kv_idx: t[q_idx, kv_idx]

    def in_valoare_implicita(fereastra, prefix):
        def masca(b, h, q_idx, kv_idx, t=tabel(fereastra, prefix)):
            return t[q_idx, kv_idx]

        return masca

    def cu_partial(fereastra, prefix):
        def citeste(t, b, h, q_idx, kv_idx):
            return t[q_idx, kv_idx]

        return functools.partial(citeste, tabel(fereastra, prefix))

    def imbricata(fereastra, prefix):
        t = tabel(fereastra, prefix).flatten()

        def interior(q_idx, kv_idx):
            return t[q_idx * n + kv_idx]

        return lambda b, h, q_idx, kv_idx: interior(q_idx, kv_idx)

    class Chemabil:
        def __init__(self, fereastra, prefix):
            self.tabel = tabel(fereastra, prefix)

        def __call__(self, b, h, q_idx, kv_idx):
            return self.tabel[q_idx, kv_idx]

    for raspuns in (in_inchidere, in_valoare_implicita, cu_partial, imbricata, Chemabil):
        _respins(cap10.exercitiul_1(raspuns), "mască densă deghizată", "ține în ea", "din indici")

    global _TABEL_GLOBAL
    _TABEL_GLOBAL = tabel(40, 8)

    def din_globala(fereastra, prefix):
        return lambda b, h, q_idx, kv_idx: _TABEL_GLOBAL[q_idx, kv_idx]

    _respins(cap10.exercitiul_1(din_globala), "mască densă deghizată", "1 024 × 1 024")

    # Printr-un modul (pe care inspecția închiderilor nu-l deschide): tabelul e prins când e citit.
    def prin_modul(fereastra, prefix):
        _MODUL_CURSANT.masti[(fereastra, prefix)] = tabel(fereastra, prefix)
        return lambda b, h, q_idx, kv_idx: _MODUL_CURSANT.masti[(fereastra, prefix)][q_idx, kv_idx]

    _respins(cap10.exercitiul_1(prin_modul), "mască densă deghizată", "citește un tensor")

    # Un tabel construit chiar în mask_mod, la fiecare apel: tot un tabel citit.
    def construit_in_masca(fereastra, prefix):
        return lambda b, h, q_idx, kv_idx: tabel(fereastra, prefix)[q_idx, kv_idx]

    _respins(cap10.exercitiul_1(construit_in_masca), "mască densă deghizată", "citește un tensor")


def test_verificarile_nu_expun_o_referinta_de_chemat():
    """Verificarea compară cu măștile dense, calculate din definiția exercițiului, și nu ține o funcție de
    referință ca atribut al modulului: un răspuns care ar chema-o cade, cu explicația în română."""
    assert not [nume for nume in vars(cap10) if "referinta" in nume], [n for n in vars(cap10) if "referinta" in n]
    _respins(cap10.exercitiul_1(lambda f, p: cap10._referinta_1(f, p)), "AttributeError", "nu are atributul",
             "_referinta_1")
    _respins(cap10.exercitiul_2(lambda limita: cap10._referinta_2(limita)), "AttributeError", "_referinta_2")


def test_1_bucla_fara_sfarsit(monkeypatch):
    def fara_sfarsit(fereastra, prefix):
        while True:
            try:
                time.sleep(0.01)
            except:  # noqa: E722
                pass

    monkeypatch.setattr(cap10, "LIMITA_APEL_S", 0.5)
    inceput = time.perf_counter()
    _respins(cap10.exercitiul_1(fara_sfarsit), "n-a terminat")
    assert time.perf_counter() - inceput < 10


# ---------------------------------------------------------------------------------------------
# Exercițiul 2
# ---------------------------------------------------------------------------------------------


def test_verificarile_nu_schimba_starea_notebookului():
    """O celulă de mai sus a lăsat Dynamo să refuze orice recompilare, FlexAttention pe drumul de depanare
    și produsele float32 în TF32: verificarea merge totuși, iar la ieșire toate sunt cum erau. Avertismentul
    „flex_attention called without torch.compile()”, dacă nu fusese arătat, rămâne de arătat."""
    import torch.nn.attention.flex_attention as modul

    aratate = set(modul._WARNINGS_SHOWN)
    precizie = torch.get_float32_matmul_precision()
    depanare = modul._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG
    try:
        torch.set_float32_matmul_precision("high")
        modul._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = True
        with torch.compiler.set_stance("fail_on_recompile"):
            _acceptat(cap10.exercitiul_2(softcap))
            _acceptat(cap10.exercitiul_1(fereastra_cu_prefix))
            assert torch.get_float32_matmul_precision() == "high"
            assert modul._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG is True
        assert set(modul._WARNINGS_SHOWN) == aratate
    finally:
        torch.set_float32_matmul_precision(precizie)
        modul._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = depanare


def test_dispozitivul():
    asteptat = "cuda" if torch.cuda.is_available() and torch.cuda.get_device_capability() >= (8, 0) else "cpu"
    assert cap10.dispozitivul().type == asteptat


def softcap(limita):  # soluția de referință
    def score_mod(score, b, h, q_idx, kv_idx):
        return limita * torch.tanh(score / limita)

    return score_mod


def softcap_cu_sigmoid(limita):  # alternativă: tanh(x) = 2·sigmoid(2x) − 1, cu o metodă a tensorului
    inversa = 1.0 / limita
    return lambda s, b, h, q, kv: limita * (2 * torch.sigmoid(2 * s * inversa) - 1)


def _scor(formula):
    def raspuns(limita):
        return lambda score, b, h, q_idx, kv_idx: formula(score, limita)

    return raspuns


def _scor_la(formula):
    """Un răspuns: `formula(score, b, h, q_idx, kv_idx, limita)` ca score_mod."""
    def raspuns(limita):
        return lambda score, b, h, q_idx, kv_idx: formula(score, b, h, q_idx, kv_idx, limita)

    return raspuns


def test_2_faptele_exercitiului():
    """Soluția, pe câteva scoruri; limitele alese sunt în intervalul anunțat; pozițiile-probă ating colțurile
    (lotul și capul 7, ultimul indice al sondei)."""
    import random

    s = torch.tensor([-100.0, -1.0, 0.0, 0.5, 100.0])
    y = softcap(5.0)(s, 0, 0, 0, 0)
    torch.testing.assert_close(y, 5.0 * torch.tanh(s / 5.0))
    assert float(y.abs().max()) <= 5.0 and abs(float(y[3]) - 0.5) < 0.01
    jos, sus = cap10.LIMITE_SOFTCAP
    for semanta in range(20):
        assert all(jos <= l <= sus for l in cap10._limite_2(random.Random(semanta)))
        pozitii = cap10._pozitii_proba(random.Random(semanta), 50, "cpu")
        assert {int(pozitii["b"].max()), int(pozitii["h"].max()), int(pozitii["q_idx"].max())} == {
            7, cap10.INDICE_SONDA - 1}


def test_2_solutia_si_alternativa():
    _cronometrat(cap10.exercitiul_2, softcap, LIMITA_2_S)
    _acceptat(cap10.exercitiul_2(softcap_cu_sigmoid))
    _acceptat(cap10.exercitiul_2(_scor(lambda s, l: (s / l).tanh() * l)))


def test_2_ciot_none_tip_gresit_si_semnatura():
    assert cap10.exercitiul_2(_nescris).mesaj == NESCRIS
    _respins(cap10.exercitiul_2(None), "None")
    _respins(cap10.exercitiul_2(lambda: None), "semnătura")
    _respins(cap10.exercitiul_2(lambda limita: None), "None", "return")
    _respins(cap10.exercitiul_2(lambda limita: (lambda b, h, q_idx, kv_idx: kv_idx <= q_idx)), "cinci argumente",
             "(score, b, h, q_idx, kv_idx)")


def test_2_formula_gresita():
    _respins(cap10.exercitiul_2(_scor(lambda s, l: s)), "nu sunt limitate", "neschimbat")
    _respins(cap10.exercitiul_2(_scor(lambda s, l: 50.0 * torch.tanh(s / 50.0))), "nu la limita primită", "de mână")
    _respins(cap10.exercitiul_2(_scor(lambda s, l: torch.tanh(s))), "`torch.tanh(score)`", "între −1 și 1")
    _respins(cap10.exercitiul_2(_scor(lambda s, l: l * torch.tanh(s))), "fără împărțirea la limită")
    _respins(cap10.exercitiul_2(_scor(lambda s, l: torch.tanh(s / l))), "fără înmulțirea cu limita")
    _respins(cap10.exercitiul_2(_scor(lambda s, l: s.clamp(-l, l))), "brusc", "`clamp`")
    _respins(cap10.exercitiul_2(_scor(lambda s, l: torch.zeros_like(s))), "ignoră `score`")
    _respins(cap10.exercitiul_2(_scor(lambda s, l: -l * torch.tanh(s / l))), "semnul schimbat")
    _respins(cap10.exercitiul_2(_scor(lambda s, l: l * torch.sigmoid(s / l))), "pentru scorul", "trebuia")


def test_2_urmarire_tip_si_forma():
    def cu_math(limita):
        def score_mod(score, b, h, q_idx, kv_idx):
            return limita * math.tanh(score / limita)

        return score_mod

    def cu_if(limita):
        def score_mod(score, b, h, q_idx, kv_idx):
            if score > limita:
                return score * 0 + limita
            return score

        return score_mod

    _respins(cap10.exercitiul_2(cu_math), "`math.tanh`", "torch.tanh", "linia")
    _respins(cap10.exercitiul_2(cu_if), "`if`", "torch.where", "linia")
    _respins(cap10.exercitiul_2(_scor(lambda s, l: (l * torch.tanh(s / l)).double())), "torch.float64",
             "păstrează tipul")
    _respins(cap10.exercitiul_2(_scor(lambda s, l: torch.stack([s, s]))), "forma (2,)")
    _respins(cap10.exercitiul_2(_scor(lambda s, l: 1.0)), "număr Python", "nu un tensor")


def test_2_depinde_de_pozitii():
    def cu_pozitii(limita):
        return lambda s, b, h, q, kv: limita * torch.tanh(s / limita) + 2.0 * (kv > 100)

    _respins(cap10.exercitiul_2(cu_pozitii), "alt rezultat pentru același scor la alte poziții", "kv_idx")


SEMINTE = ("1", "2", "3", "4", "5")


@pytest.mark.parametrize("raspuns, cuvinte", [
    (_scor_la(lambda s, b, h, q, kv, l: l * torch.tanh(s / l) + b), ("b = ",)),
    (_scor_la(lambda s, b, h, q, kv, l: l * torch.tanh(s / l) * (1 + h)), ("h = ",)),
    (_scor_la(lambda s, b, h, q, kv, l: torch.where(q - kv > 1000, s, l * torch.tanh(s / l))), ("q_idx = ",)),
    (_scor_la(lambda s, b, h, q, kv, l: torch.where(kv > 2000, s, l * torch.tanh(s / l))), ("kv_idx = ",)),
], ids=["lotul", "capul", "departe_de_diagonala", "dupa_multe_blocuri"])
def test_2_score_mod_care_depinde_de_lot_cap_sau_pozitie_pe_fiecare_samanta(raspuns, cuvinte, monkeypatch):
    """Un score_mod corect la b = h = 0 și lângă diagonală, greșit în rest: respins pe fiecare sămânță, cu
    poziția la care diferă."""
    for seminta in SEMINTE:
        monkeypatch.setenv("CURS_SEMINTA", seminta)
        _respins(cap10.exercitiul_2(raspuns), "alt rezultat pentru același scor la alte poziții", *cuvinte)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3
# ---------------------------------------------------------------------------------------------


def masca_documente(lungimi, dispozitiv):  # soluția de referință
    ids = torch.repeat_interleave(torch.arange(len(lungimi), device=dispozitiv),
                                  torch.tensor(lungimi, device=dispozitiv))

    def masca(b, h, q_idx, kv_idx):
        return (ids[q_idx] == ids[kv_idx]) & (kv_idx <= q_idx)

    total = sum(lungimi)
    return create_block_mask(masca, None, None, total, total, device=dispozitiv)


def cu_searchsorted(lungimi, dispozitiv):  # alternativă: granițele cu searchsorted, and_masks
    capete = torch.tensor(lungimi, device=dispozitiv).cumsum(0)
    total = int(capete[-1])
    ids = torch.searchsorted(capete, torch.arange(total, device=dispozitiv), right=True)

    def acelasi_document(b, h, q_idx, kv_idx):
        return ids[q_idx] == ids[kv_idx]

    return create_block_mask(and_masks(cauzala, acelasi_document), 1, 1, total, total, device=dispozitiv)


def _documente(conditie, h_gresit=False, **optiuni):
    """Un răspuns: `conditie(ids, q, kv)` ca mask_mod, cu identificatorii documentelor capturați (cu `h_gresit`,
    și toate perechile permise pentru capetele de după primul)."""
    def raspuns(lungimi, dispozitiv):
        ids = torch.repeat_interleave(torch.arange(len(lungimi)), torch.tensor(lungimi)).to(dispozitiv)
        total = sum(lungimi)
        if h_gresit:
            return create_block_mask(lambda b, h, q, kv: conditie(ids, q, kv) | (h > 0), None, None, total, total,
                                     device=dispozitiv, **optiuni)
        return create_block_mask(lambda b, h, q, kv: conditie(ids, q, kv), None, None, total, total,
                                 device=dispozitiv, **optiuni)

    return raspuns


def test_3_faptele_exercitiului():
    """Referința verificării pe un exemplu scris de mână; împărțirile verificate; o mască pe documente
    făcută din constante Python recompilează `flex_attention` compilat (faptul pe care se sprijină ultimul
    pas), una făcută dintr-un tensor capturat nu (acoperit de soluțiile acceptate)."""
    import random

    asteptat = torch.tensor([
        [1, 0, 0, 0, 0],
        [1, 1, 0, 0, 0],
        [0, 0, 1, 0, 0],
        [0, 0, 1, 1, 0],
        [0, 0, 1, 1, 1],
    ], dtype=torch.bool)
    assert torch.equal(cap10._densa_3([2, 3]), asteptat)
    assert torch.equal(create_mask(masca_documente([2, 3], "cpu").mask_mod, 1, 1, 5, 5, device="cpu")[0, 0], asteptat)
    for semanta in range(200):
        for pe_gpu in (False, True):
            cazuri, (prima, a_doua) = cap10._cazuri_3(random.Random(semanta), pe_gpu)
            cateva, unul, multe = cazuri
            assert len(unul) == 1 and len(multe) >= 6 and 3 <= len(cateva) <= 5
            assert all(l % 128 for l in cateva) and all(sum(c) % 128 for c in cazuri)
            assert min(multe) >= 1 and max(multe) <= 40
            assert sum(prima) == sum(a_doua) == cap10.LUNGIME_RECOMPILARE["cuda" if pe_gpu else "cpu"]
            # A doua împărțire are mereu alt număr de documente: o mască al cărei graf depinde de el recompilează.
            assert len(prima) != len(a_doua) and min(len(prima), len(a_doua)) >= 3 and min(prima + a_doua) >= 20


def test_3_solutia_si_alternativa():
    _cronometrat(cap10.exercitiul_3, masca_documente, LIMITA_3_S)
    _acceptat(cap10.exercitiul_3(cu_searchsorted))


def test_3_ciot_none_si_tip_gresit():
    assert cap10.exercitiul_3(_nescris).mesaj == NESCRIS
    _respins(cap10.exercitiul_3(None), "None")
    _respins(cap10.exercitiul_3(lambda lungimi: None), "semnătura")
    _respins(cap10.exercitiul_3(lambda lungimi, dispozitiv: None), "None", "return")

    def doar_mask_mod(lungimi, dispozitiv):
        return lambda b, h, q, kv: kv <= q

    def densa(lungimi, dispozitiv):
        return cap10._densa_3(lungimi)

    _respins(cap10.exercitiul_3(doar_mask_mod), "o funcție", "create_block_mask")
    _respins(cap10.exercitiul_3(densa), "mască densă", "nu un `BlockMask`")


def test_3_lungimea_rotunjita():
    def rotunjita(lungimi, dispozitiv):
        total = -(-sum(lungimi) // 128) * 128
        ids = torch.repeat_interleave(torch.arange(len(lungimi)), torch.tensor(lungimi))
        ids = torch.cat([ids, torch.full((total - ids.numel(),), -1)])
        return create_block_mask(lambda b, h, q, kv: (ids[q] == ids[kv]) & (kv <= q), None, None, total, total,
                                 device=dispozitiv)

    _respins(cap10.exercitiul_3(rotunjita), "rotunjit", "sum(lungimi)")


def test_3_greseli_de_logica():
    _respins(cap10.exercitiul_3(_documente(lambda ids, q, kv: kv <= q)), "doar cauzală", "ids[q_idx] == ids[kv_idx]")
    _respins(cap10.exercitiul_3(_documente(lambda ids, q, kv: ids[q] == ids[kv])), "nu e cauzală", "kv_idx <= q_idx")
    _respins(cap10.exercitiul_3(_documente(lambda ids, q, kv: (ids[q] == ids[kv]) & (kv <= q) & (kv < q))),
             "nu se vede pe el însuși", "`kv_idx < q_idx`")

    def granite_gresite(lungimi, dispozitiv):  # searchsorted fără right=True: primul token trece la documentul dinainte
        capete = torch.tensor(lungimi).cumsum(0)
        total = int(capete[-1])
        ids = torch.searchsorted(capete, torch.arange(total))
        return create_block_mask(lambda b, h, q, kv: (ids[q] == ids[kv]) & (kv <= q), None, None, total, total,
                                 device=dispozitiv)

    _respins(cap10.exercitiul_3(granite_gresite), "alt document", "granița")


def test_3_masca_densa_deghizata_pe_blocuri():
    def din_noop(lungimi, dispozitiv):
        ids = torch.repeat_interleave(torch.arange(len(lungimi)), torch.tensor(lungimi))
        total = sum(lungimi)
        bloc = create_block_mask(noop_mask, None, None, total, total, device=dispozitiv)
        bloc.mask_mod = lambda b, h, q, kv: (ids[q] == ids[kv]) & (kv <= q)
        return bloc

    def din_toate_blocurile(lungimi, dispozitiv):
        ids = torch.repeat_interleave(torch.arange(len(lungimi)), torch.tensor(lungimi))
        total = sum(lungimi)
        n = -(-total // 128)
        numar = torch.full((1, 1, n), n, dtype=torch.int32)
        indici = torch.arange(n, dtype=torch.int32).expand(1, 1, n, n).contiguous()
        return BlockMask.from_kv_blocks(numar, indici, seq_lengths=(total, total),
                                        mask_mod=lambda b, h, q, kv: (ids[q] == ids[kv]) & (kv <= q))

    _respins(cap10.exercitiul_3(din_noop), "mască densă deghizată în mască pe blocuri", "ar vizita fiecare bloc")
    _respins(cap10.exercitiul_3(din_toate_blocurile), "mască densă deghizată în mască pe blocuri")
    _respins(cap10.exercitiul_3(_documente(lambda ids, q, kv: (ids[q] == ids[kv]) & (kv <= q), BLOCK_SIZE=256)),
             "mai mari decât cele implicite")


def test_3_tabel_si_urmarire():
    def tabel(lungimi, dispozitiv):
        t = cap10._densa_3(list(lungimi)).to(dispozitiv)
        total = sum(lungimi)
        return create_block_mask(lambda b, h, q, kv: t[q, kv], None, None, total, total, device=dispozitiv)

    def cu_if(lungimi, dispozitiv):
        ids = torch.repeat_interleave(torch.arange(len(lungimi)), torch.tensor(lungimi))
        total = sum(lungimi)

        def masca(b, h, q, kv):
            if ids[q] != ids[kv]:
                return q < 0
            return kv <= q

        return create_block_mask(masca, None, None, total, total, device=dispozitiv)

    _respins(cap10.exercitiul_3(tabel), "mască densă deghizată în mask_mod", "ids[q_idx] == ids[kv_idx]")
    _respins(cap10.exercitiul_3(cu_if), "`if`", "linia", "`&`")


def test_3_granite_ca_constante_python_recompileaza(monkeypatch):
    # O sămânță fixă: aceleași împărțiri la fiecare rulare, deci kernel-ul compilat vine, după prima
    # rulare pe mașină, din cache-ul lui Inductor (graful depinde aici de granițe).
    monkeypatch.setenv("CURS_SEMINTA", "1010")

    def cu_constante(lungimi, dispozitiv):
        inceputuri = [sum(lungimi[:i]) for i in range(len(lungimi))]
        capete = [s + l for s, l in zip(inceputuri, lungimi)]

        def masca(b, h, q, kv):
            rezultat = q < 0
            for inceput, capat in zip(inceputuri, capete):
                rezultat = rezultat | ((q >= inceput) & (q < capat) & (kv >= inceput) & (kv <= q))
            return rezultat

        total = sum(lungimi)
        return create_block_mask(masca, None, None, total, total, device=dispozitiv)

    mesaj = _respins(cap10.exercitiul_3(cu_constante), "recompileze", "Garda căzută", "repeat_interleave",
                     "numere Python", "device=dispozitiv", lipsa=("la fiecare lot",))
    assert "documente" in mesaj


def test_3_masca_pe_care_inductor_n_o_poate_compila(monkeypatch):
    """`searchsorted` chiar în mask_mod: merge necompilat (`create_block_mask`, `flex_attention` eager), dar
    Inductor nu-l poate pune în kernel-ul atenției; verificarea o spune și arată ce să calculezi dinainte."""
    monkeypatch.setenv("CURS_SEMINTA", "1010")

    def cauta_in_masca(lungimi, dispozitiv):
        capete = torch.tensor(lungimi, device=dispozitiv).cumsum(0)
        total = sum(lungimi)

        def masca(b, h, q, kv):
            documentul = torch.searchsorted(capete, q, right=True)
            return (documentul == torch.searchsorted(capete, kv, right=True)) & (kv <= q)

        return create_block_mask(masca, None, None, total, total, device=dispozitiv)

    _respins(cap10.exercitiul_3(cauta_in_masca), "torch.compile(flex_attention)", "necompilată",
             "în afara lui mask_mod")


def test_3_masca_care_depinde_de_lot_sau_cap_pe_fiecare_samanta(monkeypatch):
    for seminta in ("1", "2", "3", "4", "5"):
        monkeypatch.setenv("CURS_SEMINTA", seminta)
        _respins(cap10.exercitiul_3(_documente(lambda ids, q, kv: (ids[q] == ids[kv]) & (kv <= q), h_gresit=True)),
                 "depinde de lot", "orice lot și orice cap")


def test_3_fara_dispozitiv_spune_ce_sa_dai():
    """`create_block_mask` fără `device=` pune masca pe „cuda”: pe o mașină fără GPU, mesajul spune ce lipsește
    (nu doar „Found no NVIDIA driver”)."""
    def fara_dispozitiv(lungimi, dispozitiv):
        ids = torch.repeat_interleave(torch.arange(len(lungimi)), torch.tensor(lungimi))
        total = sum(lungimi)
        return create_block_mask(lambda b, h, q, kv: (ids[q] == ids[kv]) & (kv <= q), None, None, total, total)

    if torch.cuda.is_available():
        pytest.skip("pe o mașină cu GPU, `device=\"cuda\"` e chiar dispozitivul implicit")
    _respins(cap10.exercitiul_3(fara_dispozitiv), "device=dispozitiv", "implicit", "\"cuda\"", "linia")


def _cu_constante_si_intrerupere(schimba_configuratia: bool):
    def raspuns(lungimi, dispozitiv):
        if schimba_configuratia:
            torch._dynamo.config.suppress_errors = True
        inceputuri = [sum(lungimi[:i]) for i in range(len(lungimi))]

        def masca(b, h, q, kv):
            torch._dynamo.graph_break()
            rezultat = q < 0
            for inceput, lungime in zip(inceputuri, lungimi):
                rezultat = rezultat | ((q >= inceput) & (q < inceput + lungime) & (kv >= inceput) & (kv <= q))
            return rezultat

        total = sum(lungimi)
        return create_block_mask(masca, None, None, total, total, device=dispozitiv)

    return raspuns


def test_3_configuratia_schimbata_si_intreruperea_in_masca(monkeypatch):
    """`suppress_errors` pus de funcția ta e respins și pus la loc; o întrerupere a grafului în mask_mod (care
    ar trimite `flex_attention` compilat în modul eager, fără nicio compilare) e spusă ca atare."""
    monkeypatch.setenv("CURS_SEMINTA", "1010")
    inainte = torch._dynamo.config.suppress_errors
    _respins(cap10.exercitiul_3(_cu_constante_si_intrerupere(True)), "configurația globală", "suppress_errors",
             "Am pus configurația la loc", lipsa=("unhashable",))
    assert torch._dynamo.config.suppress_errors == inainte
    _respins(cap10.exercitiul_3(_cu_constante_si_intrerupere(False)), "întrerupere a grafului", "graph_break()",
             "torch.compile(flex_attention)")
    # Și cu `suppress_errors` pornit de o celulă de mai sus, înaintea verificării: aceeași explicație. (Nu cu
    # `monkeypatch`: la sfârșit, el ar strica opțiunea unui `ConfigModule`.)
    torch._dynamo.config.suppress_errors = True
    try:
        _respins(cap10.exercitiul_3(_cu_constante_si_intrerupere(False)), "întrerupere a grafului", "graph_break()")
        assert torch._dynamo.config.suppress_errors is True
    finally:
        torch._dynamo.config.suppress_errors = inainte


def test_3_graful_care_depinde_de_numarul_documentelor_recompileaza(monkeypatch):
    """Granițele într-un tensor, dar cu câte un element pe document și o buclă peste documente: aceeași împărțire
    cu alt număr de documente e alt graf. A doua împărțire a verificării are mereu alt număr de documente
    (`test_3_faptele_exercitiului`, pe 200 de semințe); aici, drumul întreg, pe o sămânță fixă (cache-ul)."""
    monkeypatch.setenv("CURS_SEMINTA", "1010")

    def bucla_peste_documente(lungimi, dispozitiv):
        inceputuri = torch.tensor([sum(lungimi[:i]) for i in range(len(lungimi))], device=dispozitiv)
        capete = inceputuri + torch.tensor(lungimi, device=dispozitiv)
        documente = len(lungimi)

        def masca(b, h, q, kv):
            rezultat = q < 0
            for i in range(documente):
                rezultat = rezultat | ((q >= inceputuri[i]) & (q < capete[i]) & (kv >= inceputuri[i]) & (kv <= q))
            return rezultat

        total = sum(lungimi)
        return create_block_mask(masca, None, None, total, total, device=dispozitiv)

    _respins(cap10.exercitiul_3(bucla_peste_documente), "recompileze", "numărul documentelor", "formă nouă",
             "device=dispozitiv")


def test_3_functia_lenta_are_limita_unei_compilari(monkeypatch):
    """`create_block_mask(..., _compile=True)` compilează la fiecare apel al funcției tale: sub o limită de apel
    scurtă, ca aceea a unei măști (`LIMITA_APEL_S`), ar fi respins pe o mașină încărcată. Funcția ta are limita
    unei compilări; aici, o funcție care doarme 3 s, cu limita de apel coborâtă la 2 s (cât să încapă, și pe o
    mașină încărcată, apelurile lui `flex_attention` care păstrează limita de apel)."""
    monkeypatch.setattr(cap10, "LIMITA_APEL_S", 2.0)
    monkeypatch.setenv("CURS_SEMINTA", "1010")

    def lenta(lungimi, dispozitiv):
        time.sleep(3.0)
        return masca_documente(lungimi, dispozitiv)

    _acceptat(cap10.exercitiul_3(lenta))
