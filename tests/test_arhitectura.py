"""Arhitectura pachetului: rolurile (nucleul de măsurare, uneltele capitolelor, verificările,
uneltele instructorului), direcția importurilor dintre ele și lipsa cercurilor de importuri,
inclusiv prin importurile din interiorul funcțiilor."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RADACINA = Path(__file__).resolve().parent.parent
PACHET = RADACINA / "curs_compilare"

#: Ce rol poate importa ce rol.
PERMISE = {
    "nucleu": {"nucleu"},
    "capitole": {"nucleu", "capitole"},
    "exercitii": {"nucleu", "capitole", "exercitii"},
    "instructor": {"nucleu", "capitole", "instructor"},
}


def rol(modul: str) -> str:
    """Rolul unui modul al pachetului, după dosarul lui."""
    parti = modul.split(".")
    if len(parti) > 1 and parti[1] in ("capitole", "exercitii", "instructor"):
        return parti[1]
    return "nucleu"


def _nume_modul(cale: Path) -> tuple[str, str]:
    """(numele modulului, pachetul în care stă) pentru un fișier al pachetului."""
    parti = list(cale.relative_to(RADACINA).with_suffix("").parts)
    if parti[-1] == "__init__":
        parti = parti[:-1]
        return ".".join(parti), ".".join(parti)
    return ".".join(parti), ".".join(parti[:-1])


def importuri_interne(radacina: Path = PACHET) -> dict[str, set[str]]:
    """Pentru fiecare modul al pachetului, modulele pachetului pe care le importă, oriunde în el
    (și din interiorul funcțiilor). `from .. import cifre` numără modulul `cifre`."""
    module = {_nume_modul(f)[0]: f for f in radacina.rglob("*.py")}
    graf: dict[str, set[str]] = {}
    for nume, cale in module.items():
        _, pachet = _nume_modul(cale)
        tinte: set[str] = set()
        for nod in ast.walk(ast.parse(cale.read_text(encoding="utf-8"))):
            if isinstance(nod, ast.ImportFrom):
                if nod.level:
                    baza = pachet.split(".")[: len(pachet.split(".")) - (nod.level - 1)]
                    absolut = ".".join(baza + ([nod.module] if nod.module else []))
                else:
                    absolut = nod.module or ""
                for alias in nod.names:
                    submodul = f"{absolut}.{alias.name}"
                    tinte.add(submodul if submodul in module else absolut)
            elif isinstance(nod, ast.Import):
                tinte.update(alias.name for alias in nod.names)
        graf[nume] = {t for t in tinte if t in module and t != nume}
    return graf


def importuri_in_contra_directiei(graf: dict[str, set[str]]) -> list[str]:
    """Importurile care încalcă `PERMISE` („curs_compilare.masurare (nucleu) → ... (instructor)”).
    Un pachet își poate importa modulele lui (`__init__` → modulele din dosarul lui)."""
    gresite = []
    for modul, tinte in graf.items():
        for tinta in tinte:
            if tinta.startswith(modul + "."):  # __init__-ul unui pachet, despre modulele lui
                continue
            if rol(tinta) not in PERMISE[rol(modul)]:
                gresite.append(f"{modul} ({rol(modul)}) → {tinta} ({rol(tinta)})")
    return sorted(gresite)


def cercuri(graf: dict[str, set[str]]) -> list[list[str]]:
    """Cercurile de importuri din `graf` (câte unul pentru fiecare muchie de întoarcere găsită)."""
    gasite, stare, drum = [], {}, []

    def viziteaza(nod):
        stare[nod] = "pe drum"
        drum.append(nod)
        for urmator in sorted(graf.get(nod, ())):
            if stare.get(urmator) == "pe drum":
                gasite.append(drum[drum.index(urmator):] + [urmator])
            elif urmator not in stare:
                viziteaza(urmator)
        drum.pop()
        stare[nod] = "gata"

    for nod in sorted(graf):
        if nod not in stare:
            viziteaza(nod)
    return gasite


def _fara_pachete_parinte(graf):
    """Importul unui submodul încarcă și pachetul lui (`__init__`); un `__init__` care își importă
    modulele ar apărea altfel ca cerc cu fiecare dintre ele."""
    return {m: {t for t in tinte if not m.startswith(t + ".")} for m, tinte in graf.items()}


def test_pachetul_are_rolurile_in_dosare():
    for dosar in ("capitole", "exercitii", "instructor"):
        assert (PACHET / dosar / "__init__.py").is_file(), f"lipsește curs_compilare/{dosar}/"
        assert ast.get_docstring(ast.parse((PACHET / dosar / "__init__.py").read_text(encoding="utf-8"))), (
            f"curs_compilare/{dosar}/__init__.py trebuie să spună ce stă acolo și ce poate importa")
    capitole = sorted(p.stem for p in (PACHET / "capitole").glob("cap*.py"))
    assert capitole and all(len(n) > 6 and n[3:5].isdigit() and n[5] == "_" for n in capitole), capitole
    # la nivelul de sus, doar nucleul: niciun modul al unui capitol sau al instructorului
    for nume in ("validare", "verificare_rapida", "durate", "diapozitive", "depozit", "ilustratii",
                 "fuziune", "grafuri_cuda", "reglare", "cache_compilare", "antrenare", "diagnoza"):
        assert not (PACHET / f"{nume}.py").exists(), f"curs_compilare/{nume}.py ar trebui să stea în dosarul rolului lui"


def test_importurile_merg_intr_o_singura_directie():
    gresite = importuri_in_contra_directiei(importuri_interne())
    assert not gresite, "importuri în contra direcției rolurilor: " + "; ".join(gresite)


def test_niciun_cerc_de_importuri():
    gasite = cercuri(_fara_pachete_parinte(importuri_interne()))
    assert not gasite, "cercuri de importuri: " + "; ".join(" → ".join(c) for c in gasite)


def test_verificarea_prinde_un_import_in_contra_directiei_si_un_cerc(tmp_path):
    # un pachet mic, scris aici, cu exact greșelile pe care testele de mai sus trebuie să le prindă
    pachet = tmp_path / "curs_compilare"
    (pachet / "instructor").mkdir(parents=True)
    (pachet / "__init__.py").write_text("")
    (pachet / "instructor" / "__init__.py").write_text("")
    (pachet / "instructor" / "validare.py").write_text("from ..cifre import x\n")
    (pachet / "cifre.py").write_text("def f():\n    from .masurare import y\n")
    (pachet / "masurare.py").write_text("from . import cifre\n")
    (pachet / "mediu.py").write_text("def g():\n    from .instructor import validare\n")
    global RADACINA
    vechi = RADACINA
    RADACINA = tmp_path
    try:
        graf = importuri_interne(pachet)
    finally:
        RADACINA = vechi
    assert importuri_in_contra_directiei(graf) == [
        "curs_compilare.mediu (nucleu) → curs_compilare.instructor.validare (instructor)"]
    assert cercuri(_fara_pachete_parinte(graf)) == [
        ["curs_compilare.cifre", "curs_compilare.masurare", "curs_compilare.cifre"]]


@pytest.mark.parametrize("modul, asteptat", [
    ("curs_compilare.masurare", "nucleu"), ("curs_compilare", "nucleu"),
    ("curs_compilare.capitole.cap05_reglare", "capitole"), ("curs_compilare.exercitii.cap05", "exercitii"),
    ("curs_compilare.instructor.validare", "instructor"),
])
def test_rolul_unui_modul(modul, asteptat):
    assert rol(modul) == asteptat


def test_fisierele_lungi_ale_testelor_exista():
    """`conftest.FISIERE_LUNGI` (fișierele pornite primele) numește fișiere care există: un fișier
    redenumit ar ieși din listă fără să spună nimic."""
    import conftest

    radacina = Path(__file__).resolve().parent.parent
    lipsa = [f for f in conftest.FISIERE_LUNGI if not (radacina / f).is_file()]
    assert not lipsa, f"conftest.FISIERE_LUNGI numește fișiere care nu există: {lipsa}"
