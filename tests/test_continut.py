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


#: O promisiune că o cifră vine din referința cursului („vin din referință”, „le vezi în referință”).
TIPAR_PROMISIUNE_REFERINTA = re.compile(r"\b(?:în|din) referinț(?:ă|a)\b")  # „în referință”, „în referința cursului”
#: Spusa opusă: referința încă nu are cifrele capitolului.
TIPAR_REFERINTA_LIPSA = re.compile(r"referința cursului nu (?:le )?are încă")


def _texte_capitolului(numar: str) -> dict[str, str]:
    """Textele care pot promite cifre de referință pentru capitolul `numar` („10”): markdown-ul
    capitolului și al soluțiilor, sursa uneltelor lui (mesajele tipărite) și punctele README-ului
    care îl numesc."""
    texte = {}
    for cale in (RADACINA / "notebooks").glob(f"{numar}_*.ipynb"):
        texte[_id(cale)] = _text_markdown(nbformat.read(cale, as_version=4))
    for cale in (RADACINA / "solutions").glob(f"{numar}_*.ipynb"):
        texte[_id(cale)] = _text_markdown(nbformat.read(cale, as_version=4))
    for cale in (RADACINA / "curs_compilare" / "capitole").glob(f"cap{numar}_*.py"):
        texte[_id(cale)] = cale.read_text(encoding="utf-8")
    readme = (RADACINA / "README.md").read_text(encoding="utf-8")
    puncte = re.split(r"\n(?=- |\n)", readme)
    texte["README.md"] = "\n".join(p for p in puncte if re.search(rf"\bcapitol(?:ul|ului)? {numar}\b", p))
    # ghidul instructorului: secțiunea capitolului și punctele care îl numesc („- **10** (FlexAttention)…”)
    ghid = (RADACINA / "atelier" / "ghid_instructor.md").read_text(encoding="utf-8")
    sectiune = re.search(rf"^## Capitolul {numar}\b.*?(?=^## |\Z)", ghid, re.MULTILINE | re.DOTALL)
    puncte_ghid = [p for p in re.split(r"\n(?=- )|\n\n", ghid) if p.startswith(f"- **{numar}**")]
    texte["atelier/ghid_instructor.md"] = "\n".join(([sectiune.group(0)] if sectiune else []) + puncte_ghid)
    # agendele: varianta cu capitolul, unde există
    for cale in sorted((RADACINA / "atelier").glob("agenda_*.md")):
        varianta = re.search(rf"^## Varianta cu capitolul {numar}\b.*?(?=^## |\Z)", cale.read_text(encoding="utf-8"),
                             re.MULTILINE | re.DOTALL)
        if varianta:
            texte[_id(cale)] = varianta.group(0)
    return texte


@pytest.mark.parametrize("numar", sorted({c.name[:2] for c in CAPITOLE}))
def test_niciun_capitol_nu_promite_cifre_pe_care_referinta_nu_le_are(numar):
    """Un capitol care spune că o cifră vine „din referință” trebuie să aibă cifre în
    `assets/referinta_h200/rezultate.json`; unul care spune că referința „nu are încă” cifrele lui
    trebuie să nu aibă. Propozițiile despre referință le scrie codul (`cifre.despre_referinta`), după
    ce găsește în ea."""
    import json

    referinta = json.loads((RADACINA / "assets" / "referinta_h200" / "rezultate.json").read_text(encoding="utf-8"))
    are = any(c["cheie"].startswith(f"{numar}.") for c in referinta.get("cifre", []))
    for sursa, text in _texte_capitolului(numar).items():
        if not are:
            promisiuni = [m.group(0) for m in TIPAR_PROMISIUNE_REFERINTA.finditer(text)]
            assert not promisiuni, (f"{sursa}: spune „{promisiuni[0]}” despre capitolul {numar}, dar referința nu are "
                                    f"nicio cifră „{numar}.”")
        else:
            assert not TIPAR_REFERINTA_LIPSA.search(text), (
                f"{sursa}: spune că referința nu are încă cifrele capitolului {numar}, dar le are")
