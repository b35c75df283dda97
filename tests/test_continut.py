"""Verificări de conținut pentru fiecare notebook și soluție: format valid, fără ieșiri
salvate, diacritice corecte, structura unui capitol, soluții pentru toate exercițiile,
resurse existente, insigne la zi cu adresa cursului."""

import re
import subprocess
from pathlib import Path

import nbformat
import pytest

from curs_compilare.instructor import depozit

RADACINA = Path(__file__).resolve().parent.parent
CAPITOLE = sorted((RADACINA / "notebooks").glob("*.ipynb"))
SOLUTII = sorted((RADACINA / "solutions").glob("*.ipynb"))
TOATE = CAPITOLE + SOLUTII
CEDILE = "\u015f\u015e\u0163\u0162"  # s, S, t, T cu sedilă
EXTENSII_TEXT = {".ipynb", ".md", ".py", ".txt", ".toml", ".json", ".cfg", ".yml", ".yaml", ""}
TIPAR_EXERCITIU = re.compile(r"^## Exercițiul (\d+)", re.MULTILINE)


def _id(cale):
    return cale.relative_to(RADACINA).as_posix()


def _text_markdown(nb):
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def _fisiere_text():
    try:
        iesire = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard"], cwd=RADACINA, capture_output=True, text=True, check=True
        ).stdout.split()
        fisiere = [RADACINA / f for f in iesire]
    except (OSError, subprocess.CalledProcessError):
        fisiere = [p for p in RADACINA.rglob("*") if ".venv" not in p.parts and ".git" not in p.parts]
    return [f for f in fisiere if f.is_file() and f.suffix in EXTENSII_TEXT and f.stat().st_size < 5_000_000]


def test_exista_capitole_si_solutii():
    assert CAPITOLE, "nu există niciun notebook în notebooks/"
    assert SOLUTII, "nu există nicio soluție în solutions/"


@pytest.mark.parametrize("cale", TOATE, ids=_id)
def test_notebook_valid_si_fara_iesiri(cale):
    nb = nbformat.read(cale, as_version=4)
    nbformat.validate(nb)
    for i, celula in enumerate(nb.cells):
        if celula.cell_type == "code":
            assert not celula.get("outputs"), f"celula {i} are ieșiri salvate: șterge-le înainte de commit"
            assert celula.get("execution_count") is None, f"celula {i} are execution_count"


def test_fara_diacritice_cu_sedila():
    gresite = []
    for f in _fisiere_text():
        text = f.read_text(encoding="utf-8", errors="replace")
        if any(c in text for c in CEDILE):
            gresite.append(str(f.relative_to(RADACINA)))
    assert not gresite, "s/t cu sedilă (U+015F, U+0163) în loc de ș/ț cu virgulă (U+0219, U+021B): " + ", ".join(gresite)


@pytest.mark.parametrize("cale", CAPITOLE, ids=_id)
def test_structura_capitolului(cale):
    nb = nbformat.read(cale, as_version=4)
    prima = nb.cells[0]
    assert prima.cell_type == "markdown" and prima.source.startswith("# "), "prima celulă trebuie să fie titlul"
    assert "**Durată estimată:**" in prima.source, "lipsește durata estimată"
    assert "**Cerințe preliminare:**" in prima.source, "lipsesc cerințele preliminare"
    assert depozit.INSIGNA_IMAGINE in prima.source, "lipsește insigna „Open in Colab”"
    assert nb.cells[1].cell_type == "code" and nb.cells[1].source == depozit.celula_pregatire(), (
        "a doua celulă trebuie să fie celula de pregătire (make insigne o regenerează)"
    )
    assert re.search(r"^## Ce ai învățat", _text_markdown(nb), re.MULTILINE), "lipsește recapitularea"


def _solutia(cale):
    return RADACINA / "solutions" / (cale.stem + "_solutii.ipynb")


@pytest.mark.parametrize("cale", CAPITOLE, ids=_id)
def test_fiecare_exercitiu_are_solutie(cale):
    exercitii = TIPAR_EXERCITIU.findall(_text_markdown(nbformat.read(cale, as_version=4)))
    if not exercitii:
        return
    solutie = _solutia(cale)
    assert solutie.is_file(), f"lipsește {solutie.relative_to(RADACINA)}"
    rezolvate = TIPAR_EXERCITIU.findall(_text_markdown(nbformat.read(solutie, as_version=4)))
    lipsa = sorted(set(exercitii) - set(rezolvate), key=int)
    assert not lipsa, f"exerciții fără soluție: {lipsa}"
    assert exercitii == sorted(exercitii, key=int) and len(set(exercitii)) == len(exercitii)


@pytest.mark.parametrize("cale", SOLUTII, ids=_id)
def test_solutiile_au_capitol_si_verifica_raspunsul(cale):
    capitol = RADACINA / "notebooks" / (cale.stem.removesuffix("_solutii") + ".ipynb")
    assert capitol.is_file(), f"soluția nu are capitol: {capitol.name}"
    nb = nbformat.read(cale, as_version=4)
    assert nb.cells[1].source == depozit.celula_pregatire()
    cod = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    numar = len(TIPAR_EXERCITIU.findall(_text_markdown(nb)))
    assert cod.count("assert rezultat") >= numar, "fiecare soluție trebuie să afirme că verificarea trece"


@pytest.mark.parametrize("cale", TOATE, ids=_id)
def test_resursele_mentionate_exista(cale):
    nb = nbformat.read(cale, as_version=4)
    text = "\n".join(c.source for c in nb.cells)
    # căi relative (assets/... sau ../assets/...), nu adrese web care conțin „assets/”
    for resursa in re.findall(r"(?:(?<=\.\./)|(?<![\w/.-]))(assets/[\w./-]+\.\w+)", text):
        assert (RADACINA / resursa).is_file(), f"resursa lipsește: {resursa}"
    for legatura in re.findall(r"\]\((\.\./[\w./-]+\.ipynb)\)", text):
        assert (cale.parent / legatura).resolve().is_file(), f"legătură moartă: {legatura}"


def test_readme_si_notebookurile_sunt_la_zi_cu_adresa_cursului():
    assert depozit.sincronizeaza(RADACINA, doar_verifica=True) == [], "rulează `make insigne`"
    for f in [RADACINA / "README.md", *TOATE]:
        adrese = depozit.adrese_gasite(f.read_text(encoding="utf-8"))
        assert adrese <= {depozit.ADRESA}, f"{f.name}: adrese străine {adrese - {depozit.ADRESA}}"


def test_readme_are_insigna_pentru_fiecare_capitol():
    readme = (RADACINA / "README.md").read_text(encoding="utf-8")
    for cale in CAPITOLE:
        assert depozit.adresa_colab(_id(cale)) in readme, f"README-ul nu are insigna pentru {cale.name}"


def test_make_curata_nu_atinge_notebookurile(tmp_path):
    """`make curata` rulează pe o copie a cursului și lasă notebook-urile neatinse."""
    import shutil

    if shutil.which("make") is None:
        pytest.skip("make lipsește")
    copie = tmp_path / "curs"
    shutil.copytree(RADACINA, copie, ignore=shutil.ignore_patterns(".venv", ".git", ".whl"))
    (copie / "build").mkdir(exist_ok=True)
    (copie / "notebooks" / ".ipynb_checkpoints").mkdir()
    inainte = {p.name: p.read_bytes() for p in (copie / "notebooks").glob("*.ipynb")}
    subprocess.run(["make", "-s", "curata"], cwd=copie, check=True, capture_output=True)
    assert not (copie / "build").exists()
    assert not (copie / "notebooks" / ".ipynb_checkpoints").exists()
    assert {p.name: p.read_bytes() for p in (copie / "notebooks").glob("*.ipynb")} == inainte


def test_graficele_se_afiseaza_prin_grafice_arata():
    """`grafice.arata()` pune etichetele axelor în formatul cursului (virgulă zecimală, mii
    grupate); `plt.show()` le-ar lăsa cu punct și în notație științifică."""
    for cale in TOATE:
        for celula in nbformat.read(cale, as_version=4).cells:
            if celula.cell_type == "code":
                assert "plt.show()" not in celula.source, f"{cale.name}: folosește grafice.arata() în loc de plt.show()"
