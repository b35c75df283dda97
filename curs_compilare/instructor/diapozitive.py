"""Diapozitivele atelierului, făcute din notebook-urile cursului, fără să le modifice.

Fiecare notebook e citit de pe disc, pregătit în memorie și exportat cu `SlidesExporter` din
nbconvert: `build/diapozitive/NN_nume.slides.html`. Fișierul notebook-ului rămâne neatins, octet
cu octet.

Cum devine un notebook prezentare (`pregateste`):

- o celulă markdown care are titluri în mijlocul ei se desparte în bucăți, câte una pentru
  fiecare titlu (`imparte_la_titluri`); titlurile din blocurile de cod (```` ``` ````) nu contează;
- o bucată care începe cu „# ” sau „## ” (titlul capitolului, o secțiune, un exercițiu) deschide
  un diapozitiv nou, pe orizontală (`slide`); una care începe cu „### ” deschide un
  diapozitiv sub el, pe verticală (`subslide`); restul textului rămâne pe diapozitivul curent;
- fiecare celulă de cod deschide un diapozitiv pe verticală, iar textul de după ea (de obicei
  „Ce vezi”) rămâne alături de ea; celula de pregătire, aceeași în fiecare capitol, lipsește;
- notebook-urile se salvează fără ieșiri, deci diapozitivele arată codul și textul. Singurele
  ieșiri adăugate sunt ilustrațiile fixe ale cursului, din `assets/` (bucătăria, harta
  diagnozei), la celulele care le afișează. Cu `cu_iesiri=True` (opțiunea `--cu-iesiri`) rămân
  și ieșirile salvate în notebook, de exemplu cele din `build/validare/executate/`.

Prezentarea nu cere rețea nici când o construiești, nici când o deschizi (`fara_retea`): din ce
scrie nbconvert rămân structura diapozitivelor (secțiunile `<section>`) și stilurile lui JupyterLab,
puse în fișier; scripturile și stilurile pe care nbconvert le-ar lua de pe CDN (reveal.js, require.js,
jQuery, MathJax, mermaid) se scot, iar în locul lui reveal.js fișierul primește scriptul și stilul
de prezentare ale cursului (`prezentare.js`, `prezentare.css`, alături de acest modul): un
diapozitiv pe ecran, săgețile ca în reveal.js, Esc pentru toate diapozitivele deodată, adresa cu
diapozitivul curent. Notebook-urile cursului n-au formule, diagrame mermaid sau ieșiri JavaScript,
deci nu se pierde nimic. Fără JavaScript, fișierul se citește ca o pagină lungă.

Pentru o prezentare live, în care celulele rulează, `--rise` scrie notebook-urile pregătite la fel
(în `build/diapozitive/rise/`), de deschis în JupyterLab cu extensia RISE (`jupyterlab-rise`, în
dependențele cursului): *Run → Run All Cells*, apoi *Alt+R* pornește prezentarea, în același
kernel; *Shift+Enter* rulează celula și trece mai departe. Nu cere rețea.

    python -m curs_compilare.instructor.diapozitive                        # toate capitolele
    python -m curs_compilare.instructor.diapozitive --rise                 # pentru RISE, în JupyterLab
    python -m curs_compilare.instructor.diapozitive notebooks/03_*.ipynb   # doar câteva
    python -m curs_compilare.instructor.diapozitive --cu-iesiri --iesire build/diapozitive_cu_iesiri \\
        $(ls build/validare/executate/[0-9]*.ipynb | grep -v _solutii)
"""

from __future__ import annotations

import argparse
import base64
import copy
import re
import sys
from pathlib import Path

import nbformat

from .depozit import MARCAJ_PREGATIRE
from .pagini import fara_retea as _fara_resurse_din_retea

__all__ = [
    "RADACINA",
    "DOSAR_IMPLICIT",
    "imparte_la_titluri",
    "nivel_titlu",
    "tip_diapozitiv",
    "pregateste",
    "construieste",
    "construieste_toate",
    "pregateste_pentru_rise",
    "fara_retea",
    "main",
]

#: Dosarul cursului (cel cu `notebooks/` și `assets/`).
RADACINA = Path(__file__).resolve().parents[2]

#: Unde ajung diapozitivele, dacă nu alegi altceva.
DOSAR_IMPLICIT = RADACINA / "build" / "diapozitive"

_TITLU = re.compile(r"^(#{1,6})\s+\S")
_GARD_COD = re.compile(r"^\s{0,3}(```|~~~)")

# Celula care afișează o ilustrație fixă a cursului → fișierul ei, față de rădăcina cursului.
_ILUSTRATII = (
    (re.compile(r"ilustratii\.arata\(\s*[\"']([\w.-]+\.png)[\"']"), "assets/bucataria/{}"),
    (re.compile(r"diagnoza\.arata_harta\(\s*\)"), "assets/diagnoza/harta_diagnozei.png"),
)


def nivel_titlu(linie: str) -> int:
    """Nivelul titlului markdown de pe `linie` (1 pentru „# ”, 2 pentru „## ”…) sau 0 dacă
    linia nu e un titlu."""
    potrivire = _TITLU.match(linie)
    return len(potrivire.group(1)) if potrivire else 0


def imparte_la_titluri(sursa: str, nivel_maxim: int = 3) -> list[str]:
    """Desparte textul unei celule markdown înaintea fiecărui titlu de nivel cel mult
    `nivel_maxim`. Prima bucată e textul de dinaintea primului titlu (dacă există); bucățile
    goale lipsesc. Liniile dintr-un bloc de cod (între ```` ``` ```` sau `~~~`) nu sunt titluri."""
    bucati, curenta, in_cod = [], [], False
    for linie in sursa.splitlines():
        if _GARD_COD.match(linie):
            in_cod = not in_cod
        elif not in_cod and 0 < nivel_titlu(linie) <= nivel_maxim and curenta:
            bucati.append(curenta)
            curenta = []
        curenta.append(linie)
    bucati.append(curenta)
    return [text for text in ("\n".join(b).strip("\n") for b in bucati) if text.strip()]


def tip_diapozitiv(sursa_markdown: str) -> str:
    """Tipul reveal.js al unei bucăți de text: „slide” pentru „# ” și „## ”, „subslide” pentru
    „### ”, „-” (rămâne pe diapozitivul curent) pentru restul."""
    nivel = nivel_titlu(sursa_markdown.lstrip("\n").split("\n", 1)[0])
    if nivel in (1, 2):
        return "slide"
    if nivel == 3:
        return "subslide"
    return "-"


def _cu_tip(celula, tip: str):
    celula.metadata["slideshow"] = {"slide_type": tip}
    return celula


def _ilustratie(sursa_cod: str) -> Path | None:
    """Fișierul ilustrației fixe pe care o afișează celula, dacă există pe disc."""
    for tipar, sablon in _ILUSTRATII:
        potrivire = tipar.search(sursa_cod)
        if potrivire:
            cale = RADACINA / (sablon.format(potrivire.group(1)) if potrivire.groups() else sablon)
            return cale if cale.is_file() else None
    return None


def pregateste(nb: nbformat.NotebookNode, cu_iesiri: bool = False) -> nbformat.NotebookNode:
    """O copie a notebook-ului, gata de exportat ca diapozitive (vezi descrierea modulului).
    Notebook-ul primit rămâne neschimbat."""
    nb = copy.deepcopy(nb)
    celule = []
    for i, celula in enumerate(nb.cells):
        ident = celula.get("id") or f"celula-{i}"
        if celula.cell_type == "markdown":
            for k, bucata in enumerate(imparte_la_titluri(celula.source)):
                noua = nbformat.v4.new_markdown_cell(bucata)
                noua["id"] = ident if k == 0 else f"{ident}-{k}"[:64]
                celule.append(_cu_tip(noua, tip_diapozitiv(bucata)))
        elif celula.cell_type == "code":
            if celula.source.lstrip().startswith(MARCAJ_PREGATIRE):
                celule.append(_cu_tip(celula, "skip"))
                continue
            if not cu_iesiri:
                celula.outputs = []
            imagine = _ilustratie(celula.source)
            if imagine is not None and not celula.outputs:
                date = base64.b64encode(imagine.read_bytes()).decode("ascii")
                celula.outputs = [nbformat.v4.new_output("display_data", data={"image/png": date})]
            celula.execution_count = None
            celule.append(_cu_tip(celula, "subslide"))
        else:
            celule.append(_cu_tip(celula, "-"))
    nb.cells = celule
    return nb


def _titlu(nb: nbformat.NotebookNode, rezerva: str) -> str:
    """Titlul capitolului: primul titlu „# ” din notebook, fără marcajele markdown."""
    for celula in nb.cells:
        if celula.cell_type == "markdown":
            for linie in celula.source.splitlines():
                if nivel_titlu(linie) == 1:
                    return linie.lstrip("#").strip().replace("`", "")
    return rezerva


#: Scriptul și stilul prezentării, puse în fiecare fișier de diapozitive în locul lui reveal.js.
SCRIPT_PREZENTARE = Path(__file__).with_name("prezentare.js")
STIL_PREZENTARE = Path(__file__).with_name("prezentare.css")

# Scriptul cu care nbconvert pornește reveal.js prin require.js (care ar veni de pe CDN).
_PORNIRE_REVEAL = re.compile(r"<script>\s*require\s*\((?:(?!</script>).)*?Reveal\.initialize.*?</script>", re.S)


def fara_retea(html: str) -> str:
    """Diapozitivele scrise de nbconvert, fără nimic încărcat din rețea: fără reveal.js, require.js,
    jQuery, MathJax și mermaid de pe CDN-uri și fără pornirea lui reveal.js, cu scriptul și stilul
    de prezentare ale cursului în locul lor, puse în fișier."""
    html = _PORNIRE_REVEAL.sub("", html)
    html = _fara_resurse_din_retea(html)
    stil = f'<style type="text/css">\n{STIL_PREZENTARE.read_text(encoding="utf-8")}</style>\n'
    script = f"<script>\n{SCRIPT_PREZENTARE.read_text(encoding='utf-8')}</script>\n"
    html = html.replace("</head>", stil + "</head>", 1)
    return html.replace("</body>", script + "</body>", 1)


def _exportator():
    try:
        from nbconvert import SlidesExporter
    except ImportError as eroare:  # nbconvert vine cu jupyterlab, din requirements.txt
        raise SystemExit(
            "Lipsește nbconvert, cu care se fac diapozitivele: pip install nbconvert (sau make lab, "
            "care instalează tot mediul cursului)."
        ) from eroare
    optiuni = dict(
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        exclude_anchor_links=True,
        language_code="ro",
    )
    return SlidesExporter(**optiuni)


def construieste(cale: str | Path, dosar: str | Path = DOSAR_IMPLICIT, cu_iesiri: bool = False,
                 exportator=None) -> Path:
    """Construiește diapozitivele unui notebook în `dosar/NN_nume.slides.html` și întoarce calea
    fișierului scris. Notebook-ul e doar citit."""
    cale, dosar = Path(cale), Path(dosar)
    nb = nbformat.read(cale, as_version=4)
    titlu = _titlu(nb, cale.stem)
    exportator = exportator or _exportator()
    html, _ = exportator.from_notebook_node(
        pregateste(nb, cu_iesiri=cu_iesiri), resources={"metadata": {"name": titlu, "path": str(cale.parent)}}
    )
    # Șablonul lui nbconvert adaugă „slides” după titlul paginii: îl înlocuiești cu „diapozitive”.
    html = re.sub(r"<title>(.*?) slides</title>", r"<title>\1 — diapozitive</title>", html, count=1, flags=re.S)
    html = fara_retea(html)
    dosar.mkdir(parents=True, exist_ok=True)
    destinatie = dosar / f"{cale.stem}.slides.html"
    destinatie.write_text(html, encoding="utf-8")
    return destinatie


def construieste_toate(cai=None, dosar: str | Path = DOSAR_IMPLICIT, cu_iesiri: bool = False) -> list[Path]:
    """Diapozitivele pentru fiecare notebook din `cai` (implicit, toate capitolele din
    `notebooks/`), cu același exportator. Întoarce căile fișierelor scrise."""
    cai = [Path(c) for c in cai] if cai else sorted((RADACINA / "notebooks").glob("*.ipynb"))
    exportator = _exportator()
    return [construieste(c, dosar, cu_iesiri=cu_iesiri, exportator=exportator) for c in cai]


def pregateste_pentru_rise(cai=None, dosar: str | Path = DOSAR_IMPLICIT / "rise") -> list[Path]:
    """Notebook-urile pregătite ca diapozitive (`pregateste`), scrise ca notebook-uri, pentru o
    prezentare live cu RISE în JupyterLab (`jupyterlab-rise`): le deschizi, rulezi tot (*Run →
    Run All Cells*; celula de pregătire e și ea acolo, doar ascunsă în prezentare), apoi pornești
    prezentarea (*Alt+R*), în care celulele se pot rula din nou. Originalele rămân neatinse."""
    cai = [Path(c) for c in cai] if cai else sorted((RADACINA / "notebooks").glob("*.ipynb"))
    dosar = Path(dosar)
    dosar.mkdir(parents=True, exist_ok=True)
    scrise = []
    for cale in cai:
        destinatie = dosar / cale.name
        nbformat.write(pregateste(nbformat.read(cale, as_version=4)), destinatie)
        scrise.append(destinatie)
    return scrise


def main(argumente=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m curs_compilare.instructor.diapozitive",
        description="Diapozitivele atelierului, din notebook-urile cursului (care rămân neatinse), fără rețea.",
    )
    parser.add_argument("notebookuri", nargs="*", help="notebook-urile (implicit, toate din notebooks/)")
    parser.add_argument("--iesire", default=str(DOSAR_IMPLICIT), help="dosarul diapozitivelor (implicit build/diapozitive)")
    parser.add_argument("--cu-iesiri", action="store_true",
                        help="păstrează ieșirile salvate în notebook (de exemplu, cele din build/validare/executate)")
    parser.add_argument("--rise", action="store_true",
                        help="în loc de HTML, notebook-urile pregătite pentru o prezentare live cu RISE în JupyterLab "
                             "(în IESIRE/rise)")
    optiuni = parser.parse_args(argumente)
    lipsa = [c for c in optiuni.notebookuri if not Path(c).is_file()]
    if lipsa:
        parser.error("nu există: " + ", ".join(lipsa))
    scrise = (pregateste_pentru_rise(optiuni.notebookuri, Path(optiuni.iesire) / "rise") if optiuni.rise
              else construieste_toate(optiuni.notebookuri, optiuni.iesire, optiuni.cu_iesiri))
    for scris in scrise:
        try:
            afisat = scris.resolve().relative_to(Path.cwd().resolve())
        except ValueError:
            afisat = scris
        print(f"scris: {afisat}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
