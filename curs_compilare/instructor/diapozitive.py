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
  diagnozei), la celulele care le afișează: orice apel al funcțiilor din `_ILUSTRATII`, oricum ar
  fi scris (`grafice.arata_ilustratie("comparatie.png")`, `diagnoza.arata_harta()`), cu numele
  fișierului scris în celulă.

Diapozitivele cu ieșiri vin dintr-o execuție: cu `cu_iesiri=True` (opțiunea `--cu-iesiri`) rămân
ieșirile salvate în notebook. Un widget (un explorator) n-are kernel în diapozitive, deci în locul
lui apar valorile controalelor și graficul pe care l-a desenat la execuție (din starea widget-urilor
salvată de nbclient), iar scriptul de widget-uri din rețea lipsește. Opțiunea `--din DOSAR` ia
capitolele executate dintr-un dosar așezat ca al unei validări, `DOSAR/executate/NN_*.ipynb` (fără
soluții) și `DOSAR/rezultate.json`, ca `make pagini`, și scrie pe primul diapozitiv mașina, profilul
și data execuției (implicit în `build/diapozitive_cu_iesiri/`):

- din ieșirile mașinii tale: `make validare`, apoi `--din build/validare`;
- din referința cursului: `--din assets/referinta_h200`, când referința va avea și notebook-urile
  executate (`assets/referinta_h200/executate/`, copiate din `build/validare/executate/` al rulării
  de referință pe H200). Acum are doar cifrele (`rezultate.json`), iar comanda spune asta.

Prezentarea nu cere rețea nici când o construiești, nici când o deschizi (`fara_retea`): din ce
scrie nbconvert rămân structura diapozitivelor (secțiunile `<section>`) și stilurile lui JupyterLab,
puse în fișier; scripturile și stilurile pe care nbconvert le-ar lua de pe CDN (reveal.js, require.js,
jQuery, MathJax, mermaid, widget-urile) se scot, iar în locul lui reveal.js fișierul primește
scriptul și stilul de prezentare ale cursului (`prezentare.js`, `prezentare.css`, alături de acest
modul): un diapozitiv pe ecran, săgețile ca în reveal.js, Esc pentru toate diapozitivele deodată,
adresa cu diapozitivul curent. Liniile lungi de cod se rup pe rânduri, nu se taie la dreapta; un
diapozitiv mai înalt decât ecranul se derulează în spațiul lui, deasupra barei de navigare.
Notebook-urile cursului n-au formule, diagrame mermaid sau ieșiri JavaScript, deci nu se pierde
nimic. Fără JavaScript, fișierul se citește ca o pagină lungă.

Pentru o prezentare live, în care celulele rulează, `--rise` scrie notebook-urile pregătite la fel
(în `build/diapozitive/rise/`), pentru extensia RISE a lui JupyterLab (`jupyterlab-rise`, în
dependențele cursului), iar `--rise --lab` pornește apoi JupyterLab doar pe dosarul lor: *Run → Run
All Cells*, apoi *Alt+R* pornește prezentarea, în același kernel; *Shift+Enter* rulează celula și
trece mai departe, iar exploratoarele (ipywidgets) merg și în diapozitive. Nu cere rețea. *Alt+R*
salvează notebook-ul prezentat, chiar cu salvarea automată oprită; de aceea JupyterLab pornit de
`--lab` vede doar copiile, iar capitolele cursului rămân neatinse. Un capitol deschis direct n-are
metadate de diapozitive, deci RISE îl arată ca un singur diapozitiv lung: `--aviz-rise DOSAR` scrie
lângă capitole un `rise.css` care spune asta chiar în prezentare și dă comanda bună.

    python -m curs_compilare.instructor.diapozitive                        # toate capitolele
    python -m curs_compilare.instructor.diapozitive notebooks/03_*.ipynb   # doar câteva
    python -m curs_compilare.instructor.diapozitive --din build/validare   # cu ieșirile, după make validare
    python -m curs_compilare.instructor.diapozitive --din assets/referinta_h200   # cu ieșirile referinței
    python -m curs_compilare.instructor.diapozitive --rise --lab           # prezentarea live, cu RISE
"""

from __future__ import annotations

import argparse
import ast
import base64
import copy
import json
import os
import re
import shlex
import subprocess
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
    "ilustratii",
    "pregateste",
    "construieste",
    "construieste_toate",
    "din_executie",
    "pregateste_pentru_rise",
    "argumente_jupyterlab_rise",
    "jupyterlab_pentru_rise",
    "AVIZ_RISE_CSS",
    "scrie_avizul_rise",
    "fara_retea",
    "main",
]

#: Dosarul cursului (cel cu `notebooks/` și `assets/`).
RADACINA = Path(__file__).resolve().parents[2]

#: Unde ajung diapozitivele, dacă nu alegi altceva.
DOSAR_IMPLICIT = RADACINA / "build" / "diapozitive"

_TITLU = re.compile(r"^(#{1,6})\s+\S")
_GARD_COD = re.compile(r"^\s{0,3}(```|~~~)")

# Funcțiile cursului care afișează o ilustrație fixă (un fișier PNG din `assets/`) → funcția care dă
# calea fișierului din argumentele apelului. Celula le cheamă cu modulul în față
# (`grafice.arata_ilustratie("ospatarul.png")`, `diagnoza.arata_harta()`) sau importate direct; contează
# doar numele funcției.
def _cale_ilustratie_bucatarie(nume: str) -> Path:
    from curs_compilare.grafice import cale_ilustratie

    return cale_ilustratie(nume)


def _cale_hartii_diagnozei() -> Path:
    from curs_compilare.capitole.cap07_diagnoza import cale_harta

    return cale_harta()


_ILUSTRATII = {
    "arata_ilustratie": _cale_ilustratie_bucatarie,
    "arata_harta": _cale_hartii_diagnozei,
}

# Liniile IPython (magice, comenzi de shell), pe care `ast` nu le înțelege.
_LINIE_IPYTHON = re.compile(r"^\s*[%!]")


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


def ilustratii(sursa_cod: str) -> list[Path]:
    """Fișierele ilustrațiilor fixe pe care le afișează celula de cod, în ordinea apelurilor
    (`_ILUSTRATII`): un apel al uneia dintre funcții, cu argumentele scrise direct în celulă (un
    nume de fișier, nu o variabilă). Un apel al cărui fișier lipsește de pe disc e o eroare: fără
    el, diapozitivul ar rămâne fără desen, pe tăcute."""
    try:
        arbore = ast.parse("\n".join("" if _LINIE_IPYTHON.match(l) else l for l in sursa_cod.splitlines()))
    except SyntaxError:
        return []
    apeluri = []
    for nod in ast.walk(arbore):
        if not isinstance(nod, ast.Call):
            continue
        functie = nod.func
        nume = functie.attr if isinstance(functie, ast.Attribute) else getattr(functie, "id", None)
        if nume not in _ILUSTRATII:
            continue
        try:
            argumente = [ast.literal_eval(a) for a in nod.args]
            cu_nume = {k.arg: ast.literal_eval(k.value) for k in nod.keywords if k.arg}
        except ValueError:
            continue  # un argument calculat abia la rulare: fișierul nu se știe dinainte
        cale = Path(_ILUSTRATII[nume](*argumente, **cu_nume))
        if not cale.is_file():
            raise FileNotFoundError(
                f"Celula afișează ilustrația {cale}, care lipsește: o redesenezi cu `make ilustratii`."
            )
        apeluri.append((nod.lineno, nod.col_offset, cale))
    return [cale for *_, cale in sorted(apeluri)]


#: Ieșirea cu care o celulă afișează un widget (un explorator): doar adresa modelului din kernel.
TIP_WIDGET = "application/vnd.jupyter.widget-view+json"
#: Starea widget-urilor salvată în notebook la execuție (nbclient o salvează implicit).
TIP_STARE_WIDGETURI = "application/vnd.jupyter.widget-state+json"

_PREFIX_MODEL = "IPY_MODEL_"


def _copii_widget(stare_model: dict) -> list[str]:
    copii = stare_model.get("children") or []
    return [c[len(_PREFIX_MODEL):] for c in copii if isinstance(c, str) and c.startswith(_PREFIX_MODEL)]


def _valori_controale(model_id: str, modele: dict, vazute: set) -> list[str]:
    """„dimensiune: 256 MiB” pentru fiecare control cu opțiuni (glisor, listă) din arborele widget-ului."""
    if model_id in vazute or model_id not in modele:
        return []
    vazute.add(model_id)
    stare = modele[model_id].get("state", {})
    etichete, index = stare.get("_options_labels"), stare.get("index")
    valori = []
    if etichete and isinstance(index, int) and 0 <= index < len(etichete):
        valori.append(f"{stare.get('description') or 'valoare'}: {etichete[index]}")
    for copil in _copii_widget(stare):
        valori += _valori_controale(copil, modele, vazute)
    return valori


def _iesiri_salvate(model_id: str, modele: dict, vazute: set) -> list:
    """Ieșirile salvate în widget-urile `Output` din arborele widget-ului (graficul exploratorului,
    desenat la valorile de pornire), în ordine."""
    if model_id in vazute or model_id not in modele:
        return []
    vazute.add(model_id)
    stare = modele[model_id].get("state", {})
    iesiri = []
    for iesire in stare.get("outputs") or []:
        iesiri += _fara_widgeturi([nbformat.from_dict(iesire)], modele)
    for copil in _copii_widget(stare):
        iesiri += _iesiri_salvate(copil, modele, vazute)
    return iesiri


def _fara_widgeturi(iesiri: list, modele: dict) -> list:
    """Ieșirile celulei, cu fiecare widget înlocuit de ce a desenat el la execuție: o linie cu
    valorile controalelor, apoi ieșirile salvate în el (graficul). Un diapozitiv static nu are
    kernel, deci widget-ul n-ar apărea deloc (sau ar apărea ca `VBox(children=…)`)."""
    noi = []
    for iesire in iesiri:
        afisata = iesire.get("output_type") in ("display_data", "execute_result")
        vedere = iesire.get("data", {}).get(TIP_WIDGET) if afisata else None
        if not vedere:
            noi.append(iesire)
            continue
        model_id = vedere.get("model_id", "")
        valori = _valori_controale(model_id, modele, set())
        desenat = _iesiri_salvate(model_id, modele, set())
        if desenat:
            antet = "Exploratorul interactiv, la valorile de pornire"
            antet += (" (" + "; ".join(valori) + ")") if valori else ""
            noi.append(nbformat.v4.new_output("stream", name="stdout", text=antet + ":\n"))
            noi += desenat
        else:
            noi.append(nbformat.v4.new_output(
                "stream", name="stdout",
                text="Aici e un explorator interactiv: îl folosești în notebook (JupyterLab sau Colab); "
                     "notebook-ul executat nu i-a salvat desenul.\n"))
    return noi


def pregateste(nb: nbformat.NotebookNode, cu_iesiri: bool = False, nota: str | None = None) -> nbformat.NotebookNode:
    """O copie a notebook-ului, gata de exportat ca diapozitive (vezi descrierea modulului).
    `nota` (markdown), dacă există, apare pe primul diapozitiv, sub titlu. Notebook-ul primit
    rămâne neschimbat."""
    nb = copy.deepcopy(nb)
    # Starea widget-urilor rămâne doar ca sursă pentru desenele exploratoarelor: în metadate, ea ar
    # face nbconvert să ceară din rețea (unpkg) scriptul care desenează widget-uri.
    stare = nb.metadata.pop("widgets", {}).get(TIP_STARE_WIDGETURI, {})
    modele = stare.get("state", {}) if isinstance(stare, dict) else {}
    celule = []
    for i, celula in enumerate(nb.cells):
        ident = celula.get("id") or f"celula-{i}"
        if celula.cell_type == "markdown":
            for k, bucata in enumerate(imparte_la_titluri(celula.source)):
                if nota and not celule:  # sub primul rând (titlul capitolului) al primului diapozitiv
                    primul, _, rest = bucata.partition("\n")
                    bucata = f"{primul}\n\n{nota}\n{rest}"
                noua = nbformat.v4.new_markdown_cell(bucata)
                noua["id"] = ident if k == 0 else f"{ident}-{k}"[:64]
                celule.append(_cu_tip(noua, tip_diapozitiv(bucata)))
        elif celula.cell_type == "code":
            if celula.source.lstrip().startswith(MARCAJ_PREGATIRE):
                celule.append(_cu_tip(celula, "skip"))
                continue
            celula.outputs = _fara_widgeturi(celula.outputs, modele) if cu_iesiri else []
            if not celula.outputs:
                celula.outputs = [
                    nbformat.v4.new_output("display_data",
                                           data={"image/png": base64.b64encode(imagine.read_bytes()).decode("ascii")})
                    for imagine in ilustratii(celula.source)
                ]
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
                 exportator=None, nota: str | None = None) -> Path:
    """Construiește diapozitivele unui notebook în `dosar/NN_nume.slides.html` și întoarce calea
    fișierului scris. Notebook-ul e doar citit. `nota` (markdown) apare pe primul diapozitiv."""
    cale, dosar = Path(cale), Path(dosar)
    nb = nbformat.read(cale, as_version=4)
    titlu = _titlu(nb, cale.stem)
    exportator = exportator or _exportator()
    html, _ = exportator.from_notebook_node(
        pregateste(nb, cu_iesiri=cu_iesiri, nota=nota), resources={"metadata": {"name": titlu, "path": str(cale.parent)}}
    )
    # Șablonul lui nbconvert adaugă „slides” după titlul paginii: îl înlocuiești cu „diapozitive”.
    html = re.sub(r"<title>(.*?) slides</title>", r"<title>\1 — diapozitive</title>", html, count=1, flags=re.S)
    html = fara_retea(html)
    dosar.mkdir(parents=True, exist_ok=True)
    destinatie = dosar / f"{cale.stem}.slides.html"
    destinatie.write_text(html, encoding="utf-8")
    return destinatie


def construieste_toate(cai=None, dosar: str | Path = DOSAR_IMPLICIT, cu_iesiri: bool = False,
                       nota: str | None = None) -> list[Path]:
    """Diapozitivele pentru fiecare notebook din `cai` (implicit, toate capitolele din
    `notebooks/`), cu același exportator. Întoarce căile fișierelor scrise."""
    cai = [Path(c) for c in cai] if cai else sorted((RADACINA / "notebooks").glob("*.ipynb"))
    exportator = _exportator()
    return [construieste(c, dosar, cu_iesiri=cu_iesiri, exportator=exportator, nota=nota) for c in cai]


def din_executie(din: str | Path) -> tuple[list[Path], str]:
    """Capitolele executate ale unei validări (sau ale referinței, când va avea notebook-urile
    executate): `din/executate/NN_*.ipynb`, fără soluții, și nota pentru primul diapozitiv, cu
    mașina și data din `din/rezultate.json`. Aceeași așezare o citește și `make pagini`."""
    from .pagini import descriere_masina

    din = Path(din)
    executate = sorted(c for c in (din / "executate").glob("[0-9]*.ipynb") if not c.stem.endswith("_solutii"))
    if not executate:
        raise FileNotFoundError(
            f"Nu găsesc capitole executate în {din / 'executate'}. Pentru ieșirile mașinii tale, rulează întâi "
            "`make validare` și folosește --din build/validare. Referința cursului (assets/referinta_h200) are "
            "notebook-urile executate abia după rularea de referință pe GPU; până atunci are doar cifrele."
        )
    rezultate = din / "rezultate.json"
    date = json.loads(rezultate.read_text(encoding="utf-8")) if rezultate.is_file() else {}
    mediu = date.get("mediu") or {}
    cand = f", la {date['data']}" if date.get("data") else ""
    profil = ", în profilul rapid (tensori minusculi: cifrele nu măsoară ce pretind)" if mediu.get("profil") == "rapid" else ""
    nota = (f"*Ieșirile din aceste diapozitive vin dintr-o execuție pe {descriere_masina(mediu)}{profil}{cand}: "
            "cifrele, tabelele și graficele sunt ale acelei mașini, nu ale mașinii tale.*")
    return executate, nota


#: Setările RISE puse în notebook-urile pregătite (metadatele „rise”, pe care jupyterlab-rise le citește
#: peste setările lui): un diapozitiv mai înalt decât ecranul se derulează, în loc să fie tăiat jos.
SETARI_RISE = {"scroll": True}


def pregateste_pentru_rise(cai=None, dosar: str | Path = DOSAR_IMPLICIT / "rise") -> list[Path]:
    """Notebook-urile pregătite ca diapozitive (`pregateste`), scrise ca notebook-uri, pentru o
    prezentare live cu RISE în JupyterLab (`jupyterlab-rise`): le deschizi, rulezi tot (*Run →
    Run All Cells*; celula de pregătire e și ea acolo, doar ascunsă în prezentare), apoi pornești
    prezentarea (*Alt+R*), în care celulele se pot rula din nou. Originalele rămân neatinse.

    *Alt+R* salvează notebook-ul înainte să-l prezinte, chiar cu salvarea automată oprită
    (jupyterlab-rise 0.43 cheamă `context.save()`), iar JupyterLab rescrie la salvare `kernelspec`
    și `language_info`. De aceea se prezintă copiile, nu capitolele: pornit cu `jupyterlab_pentru_rise`
    (opțiunea `--lab`), JupyterLab vede doar dosarul copiilor, deci nu are cum salva altceva."""
    cai = [Path(c) for c in cai] if cai else sorted((RADACINA / "notebooks").glob("*.ipynb"))
    dosar = Path(dosar)
    dosar.mkdir(parents=True, exist_ok=True)
    scrise = []
    for cale in cai:
        destinatie = dosar / cale.name
        nb = pregateste(nbformat.read(cale, as_version=4))
        nb.metadata["rise"] = {**nb.metadata.get("rise", {}), **SETARI_RISE}
        nbformat.write(nb, destinatie)
        scrise.append(destinatie)
    return scrise


def argumente_jupyterlab_rise(dosar: str | Path, primul: str | None = None) -> list[str]:
    """Opțiunile lui `jupyter lab` pentru prezentarea RISE: rădăcina serverului e dosarul copiilor
    (deci capitolele din `notebooks/` nu se pot deschide și nici salva de acolo), iar pagina de
    pornire e prima copie (`primul`, numele ei) sau lista copiilor."""
    dosar = Path(dosar).resolve()
    return [f"--ServerApp.root_dir={dosar}", f"--LabApp.default_url=/lab/tree/{primul or ''}".rstrip("/")]


def jupyterlab_pentru_rise(dosar: str | Path, primul: str | None = None, argumente=()) -> int:
    """Pornește JupyterLab pe dosarul copiilor pentru RISE (vezi `argumente_jupyterlab_rise`) și
    așteaptă până se oprește (Ctrl+C în terminal); întoarce codul lui de ieșire."""
    comanda = [sys.executable, "-m", "jupyter", "lab", *argumente_jupyterlab_rise(dosar, primul), *argumente]
    proces = subprocess.Popen(comanda, env={**os.environ, "CURS_RADACINA": str(RADACINA)})
    while True:
        try:
            return proces.wait()
        except KeyboardInterrupt:
            continue  # Ctrl+C ajunge și la JupyterLab, care întreabă dacă să se oprească: îl aștepți


#: Stilul care, pus ca `rise.css` lângă capitole (RISE îl încarcă din dosarul notebook-ului
#: prezentat), spune în prezentarea unui capitol deschis direct că acesta nu are diapozitive și
#: care e drumul bun. Copiile din `build/diapozitive/rise/` sunt în alt dosar, deci nu-l văd.
AVIZ_RISE_CSS = """\
/* Scris de python -m curs_compilare.instructor.diapozitive --aviz-rise. RISE încarcă rise.css din
   dosarul notebook-ului pe care îl prezintă: apare doar în prezentarea unui capitol deschis direct. */
body.rise-enabled::before {
  content: "Capitolul acesta nu e împărțit în diapozitive: RISE îl arată ca un singur diapozitiv lung (iar deschiderea prezentării a salvat notebook-ul). Pentru prezentare, în terminal, în dosarul cursului: python -m curs_compilare.instructor.diapozitive --rise --lab";
  position: fixed;
  top: 0;
  left: 0;
  right: 0;
  z-index: 1000;
  padding: 10px 16px;
  background: #fff3cd;
  border-bottom: 1px solid #e0c36a;
  color: #3d3000;
  font: 18px/1.4 sans-serif;
}
"""


def scrie_avizul_rise(dosar: str | Path) -> Path:
    """Scrie `AVIZ_RISE_CSS` ca `dosar/rise.css` și întoarce calea."""
    cale = Path(dosar) / "rise.css"
    cale.write_text(AVIZ_RISE_CSS, encoding="utf-8")
    return cale


def _afisat(cale: Path):
    try:
        return cale.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return cale


def main(argumente=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m curs_compilare.instructor.diapozitive",
        description="Diapozitivele atelierului, din notebook-urile cursului (care rămân neatinse), fără rețea.",
    )
    parser.add_argument("notebookuri", nargs="*", help="notebook-urile (implicit, toate din notebooks/)")
    parser.add_argument("--iesire", default=None,
                        help="dosarul diapozitivelor (implicit build/diapozitive; cu --din, build/diapozitive_cu_iesiri)")
    parser.add_argument("--cu-iesiri", action="store_true",
                        help="păstrează ieșirile salvate în notebook (de exemplu, cele din build/validare/executate)")
    parser.add_argument("--din", metavar="DOSAR",
                        help="diapozitivele capitolelor executate din DOSAR/executate, cu ieșirile lor și cu mașina din "
                             "DOSAR/rezultate.json: build/validare după make validare sau referința, când va avea "
                             "notebook-urile executate")
    parser.add_argument("--rise", action="store_true",
                        help="în loc de HTML, notebook-urile pregătite pentru o prezentare live cu RISE în JupyterLab "
                             "(în IESIRE/rise)")
    parser.add_argument("--lab", action="store_true",
                        help="cu --rise: pornește apoi JupyterLab doar pe dosarul copiilor (originalele nu se pot salva)")
    parser.add_argument("--lab-argumente", default="", metavar="ARGUMENTE",
                        help='opțiuni în plus pentru jupyter lab, cu semnul egal: --lab-argumente="--no-browser --port=8888"')
    parser.add_argument("--aviz-rise", nargs="+", metavar="DOSAR",
                        help="scrie rise.css în fiecare DOSAR (de exemplu notebooks solutions): prezentarea RISE a unui "
                             "capitol deschis direct spune că el nu are diapozitive și care e comanda bună")
    optiuni = parser.parse_args(argumente)
    if optiuni.aviz_rise:
        for dosar in optiuni.aviz_rise:
            print(f"scris: {_afisat(scrie_avizul_rise(dosar))}")
        return 0
    if optiuni.lab and not optiuni.rise:
        parser.error("--lab merge doar cu --rise")
    lipsa = [c for c in optiuni.notebookuri if not Path(c).is_file()]
    if lipsa:
        parser.error("nu există: " + ", ".join(lipsa))
    nota = None
    if optiuni.din:
        if optiuni.notebookuri or optiuni.rise:
            parser.error("--din alege singur capitolele executate; nu merge cu o listă de notebook-uri sau cu --rise")
        try:
            optiuni.notebookuri, nota = din_executie(optiuni.din)
        except FileNotFoundError as eroare:
            parser.exit(2, f"{parser.prog}: {eroare}\n")
        optiuni.cu_iesiri = True
    iesire = Path(optiuni.iesire or (DOSAR_IMPLICIT.parent / "diapozitive_cu_iesiri" if optiuni.din else DOSAR_IMPLICIT))
    if optiuni.rise:
        scrise = pregateste_pentru_rise(optiuni.notebookuri, iesire / "rise")
    else:
        scrise = construieste_toate(optiuni.notebookuri, iesire, optiuni.cu_iesiri, nota=nota)
    for scris in scrise:
        print(f"scris: {_afisat(scris)}")
    if optiuni.rise:
        dosar = iesire / "rise"
        if not optiuni.lab:
            print(f"\nPentru prezentare, adaugă --lab: pornește JupyterLab doar pe {_afisat(dosar)}, unde deschizi un "
                  "capitol, Run → Run All Cells, apoi Alt+R. Alt+R salvează notebook-ul prezentat: așa salvează "
                  "copia, nu capitolul cursului.")
            return 0
        print(f"\nPornesc JupyterLab doar pe {_afisat(dosar)} (Ctrl+C îl oprește). Deschizi un capitol, "
              "Run → Run All Cells, apoi Alt+R.")
        return jupyterlab_pentru_rise(dosar, scrise[0].name if len(scrise) == 1 else None,
                                      shlex.split(optiuni.lab_argumente))
    return 0


if __name__ == "__main__":
    sys.exit(main())
