"""Conținutul capitolului 00 și al soluțiilor lui: terminologia cursului („apel”, „ospătarul”,
„produs de matrice”), persoana a II-a, numerele tipărite prin `curs_compilare.cifre` și celule
care nu lasă în urmă o valoare `Out[]`."""

import ast
import re

import pytest

from text_notebook import APELARE, FORMAT_INTERZIS, NOI, RADACINA
from text_notebook import celule as _celule
from text_notebook import tot as _text_si_cod

FISIERE = [
    RADACINA / "notebooks" / "00_mediul_si_masurarea.ipynb",
    RADACINA / "solutions" / "00_mediul_si_masurarea_solutii.ipynb",
]
VERIFICARI = RADACINA / "curs_compilare" / "exercitii" / "cap00.py"
#: Uneltele capitolului: ce tipăreau și notau celulele stă acum aici, așa că verificările textului
#: și ale numerelor tipărite se uită și în ele.
UNELTE = RADACINA / "curs_compilare" / "capitole" / "cap00_masurare.py"


@pytest.mark.parametrize("cale", FISIERE, ids=lambda c: c.name)
def test_apel_nu_apelare(cale):
    gasite = APELARE.findall(_text_si_cod(cale))
    assert not gasite, f"scrie „apel / apeluri / primul apel”, nu: {sorted(set(gasite))}"


@pytest.mark.parametrize("modul", [VERIFICARI, UNELTE], ids=lambda c: c.name)
def test_verificarile_spun_apel_nu_apelare(modul):
    text = modul.read_text(encoding="utf-8")
    gasite = APELARE.findall(text)
    assert not gasite, f"{modul.name}: {sorted(set(gasite))}"


@pytest.mark.parametrize("cale", FISIERE, ids=lambda c: c.name)
def test_persoana_a_doua(cale):
    text = "\n".join(c.source for c in _celule(cale, "markdown"))
    cod = "\n".join(c.source for c in _celule(cale, "code"))
    comentarii = "\n".join(l.split("#", 1)[1] for l in cod.splitlines() if "#" in l)
    gasite = NOI.findall(text + "\n" + comentarii)
    assert not gasite, f"textul se adresează cu „tu”, nu cu „noi”: {sorted(set(gasite))}"


def test_ospatarul_si_produsul_de_matrice():
    text = _text_si_cod(FISIERE[0])
    assert "chelner" not in text, "analogia cursului folosește „ospătarul”"
    assert "ospătarul" in text
    assert not re.search(r"înmulțir\w* de matrice", text), "scrie „produs de matrice”"


@pytest.mark.parametrize("cale", FISIERE, ids=lambda c: c.name)
def test_numerele_tiparite_trec_prin_cifre(cale):
    for celula in _celule(cale, "code"):
        gasite = FORMAT_INTERZIS.findall(celula.source)
        assert not gasite, f"numere formatate de mână (folosește curs_compilare.cifre): {gasite}"
        assert '.replace(",", " ")' not in celula.source


@pytest.mark.parametrize("modul", [VERIFICARI, UNELTE], ids=lambda c: c.name)
def test_verificarile_scriu_numerele_prin_cifre(modul):
    text = modul.read_text(encoding="utf-8")
    gasite = FORMAT_INTERZIS.findall(text)
    assert not gasite, f"{modul.name} formatează numere de mână: {gasite}"
    assert '.replace(",", " ")' not in text


def _ultima_expresie(sursa):
    """Ultima instrucțiune a celulei, dacă e o expresie (a cărei valoare ar apărea ca Out[])."""
    fara_magice = "\n".join("" if l.lstrip().startswith(("%", "!")) else l for l in sursa.splitlines())
    corp = ast.parse(fara_magice).body
    return corp[-1] if corp and isinstance(corp[-1], ast.Expr) else None


def _unelte_care_nu_intorc_nimic() -> tuple[str, ...]:
    """Uneltele capitolului (`cap00_masurare`) declarate `-> None`: tipăresc sau notează cifre."""
    from curs_compilare.capitole import cap00_masurare

    return tuple(
        f"{nume}(" for nume in cap00_masurare.__all__
        if getattr(cap00_masurare, nume).__annotations__.get("return", "lipsă") in (None, "None")
    )


#: Apelurile cu care o celulă poate să se termine: nu întorc nimic (print, grafice.arata, uneltele
#: capitolului care tipăresc sau notează cifre) sau întorc un rezultat cu reprezentare HTML
#: (verificările exercițiilor, exploratorul).
PERMISE_LA_FINAL = (
    "print", "grafice.arata", "ilustratii.arata", "exploreaza", "verificari.exercitiul_", "rezultat", "cifre.inregistreaza",
) + _unelte_care_nu_intorc_nimic()


@pytest.mark.parametrize("cale", FISIERE, ids=lambda c: c.name)
def test_nicio_celula_nu_lasa_out(cale):
    """Sub nbval (`store_history=False`), „;” nu mai ascunde valoarea ultimei expresii: celula
    trebuie să se termine cu o atribuire sau cu un apel care nu întoarce nimic."""
    for celula in _celule(cale, "code"):
        expresie = _ultima_expresie(celula.source)
        if expresie is None:
            continue
        text = ast.unparse(expresie.value)
        assert text.startswith(PERMISE_LA_FINAL), f"celula se termină cu o valoare (Out[]): {text[:80]}"


def test_cifrele_de_referinta_numarate_cer_de():
    """Pragul de rentabilitate e un număr de apeluri: „431 de apeluri”, nu „431 apeluri”."""
    from curs_compilare.cifre import descrie_cifra, probleme_de_format

    text = descrie_cifra({"valoare": 431.0, "unitate": "apeluri"})
    assert text == "431 de apeluri" and not probleme_de_format(text)
    assert descrie_cifra({"valoare": 4.0, "unitate": "kernel-uri"}) == "4 kernel-uri"


def test_exercitiile_spun_ce_verifica():
    """Enunțurile spun ce încearcă verificările: GPU-uri simulate cu durate alese la întâmplare,
    lucrul primului apel rămas în coadă (deci sincronizarea de după încălzire), modelul unic al
    amortizării (`curs_compilare/amortizare.py`) cu „de acolo încolo” și cazul compilatului mai
    lent pe apel."""
    text = "\n".join(c.source for c in _celule(FISIERE[0], "markdown"))
    assert "durate alese la întâmplare" in text
    assert "rămâne în coadă" in text and "chiar înainte de a porni ceasul" in text
    assert "curs_compilare/amortizare.py" in text
    assert "de la *n* încolo" in text
    assert "Dacă e negativ" in text and "`None`" in text


def test_solutia_exercitiului_3_foloseste_modelul_unic():
    """Soluția întoarce None când varianta compilată e mai lentă pe apel, chiar dacă primul ei
    apel e mai ieftin (modelul din `curs_compilare.amortizare`)."""
    import math

    from curs_compilare.amortizare import apel_de_amortizare

    cod = next(c.source for c in _celule(FISIERE[1], "code") if c.source.startswith("def dupa_cate_apeluri("))
    spatiu = {"math": math}
    exec(cod.split("\n\n\nrezultat")[0], spatiu)
    for prima, eager, compilat in [(0.002, 0.003, 0.004), (9.0, 3.0, 1.0), (0.002, 0.003, 0.003), (5.0, 1.0, 1.0)]:
        assert spatiu["dupa_cate_apeluri"](prima, eager, compilat) == apel_de_amortizare(eager, eager, prima, compilat)


@pytest.mark.parametrize("prag, raport, asteptat", [
    (None, (0.8, 0.75, 0.85), "nu se amortizează"),
    (33, (8.0, 7.5, 8.5), "Compilarea s-a amortizat la apelul 33."),
    (64993, (1.01, 0.9, 1.2), "în limita zgomotului"),  # un prag din zgomot nu e dat drept sigur
])
def test_pragul_de_rentabilitate_nu_e_dat_drept_sigur_cand_diferenta_e_zgomot(prag, raport, asteptat):
    """Propoziția de sub graficul rentabilității o scrie `raporteaza_rentabilitatea`, din uneltele
    capitolului; celula graficului i-o cere, cu pragul din grafic și accelerarea măsurată."""
    import contextlib
    import io

    from curs_compilare import cifre
    from curs_compilare.capitole.cap00_masurare import raporteaza_rentabilitatea
    from curs_compilare.masurare import Raport

    sursa = next(c.source for c in _celule(FISIERE[0], "code") if "grafic_rentabilitate(" in c.source)
    assert "raporteaza_rentabilitatea(prag, accelerare)" in sursa
    iesire = io.StringIO()
    with contextlib.redirect_stdout(iesire):
        raporteaza_rentabilitatea(prag, Raport(*raport, runde=5))
    text = iesire.getvalue()
    assert asteptat in text and cifre.probleme_de_format(text) == []
    assert ("s-a amortizat" in text) == (asteptat.startswith("Compilarea"))
