"""Capitolele executate, ca pagini HTML statice care se deschid fără rețea (`make pagini`).

O validare (`make validare`) păstrează în `executate/` fiecare notebook cu ieșirile lui: textul
tipărit, tabelele, graficele. Din ele, comanda aceasta face câte o pagină HTML pe notebook și un
cuprins, de citit într-un browser oarecare, fără Jupyter și fără internet:

- celulele se transformă cu `HTMLExporter` din nbconvert (șablonul `lab`, stilul inclus în
  pagină), cu imaginile puse în fișier (`embed_images`);
- scripturile pe care nbconvert le ia de pe CDN (require.js, pentru ieșirile JavaScript, MathJax,
  pentru formule, și mermaid, pentru diagrame) se scot: notebook-urile cursului n-au nici
  formule, nici diagrame mermaid, nici ieșiri JavaScript de păstrat (exploratoarele ipywidgets
  nu rulează fără kernel), deci paginile nu pierd nimic;
- insigna Colab (o imagine de pe colab.research.google.com) devine un link text;
- fiecare pagină începe cu mașina pe care a fost executat notebook-ul (din `rezultate.json`-ul validării):
  cifrele sunt ale acelei mașini, nu ale mașinii cititorului.

    python -m curs_compilare.instructor.pagini [--din build/validare] [--iesire build/pagini]
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from pathlib import Path

import nbformat

from ..cifre import cu_substantiv

#: Elementele care ar încărca ceva de la o adresă din rețea când se deschide pagina.
_SCRIPT_DIN_RETEA = re.compile(r"<script\b[^>]*\bsrc=\"https?://[^\"]*\"[^>]*>\s*</script>", re.I)
_CONFIG_MATHJAX = re.compile(r"<script\b[^>]*type=\"text/x-mathjax-config\"[^>]*>.*?</script>", re.I | re.S)
_LINK_DIN_RETEA = re.compile(r"<link\b[^>]*\bhref=\"https?://[^\"]*\"[^>]*>", re.I)
_IMAGINE_DIN_RETEA = re.compile(r"<img\b[^>]*\bsrc=\"(https?://[^\"]*)\"[^>]*>", re.I)
_ALT = re.compile(r"\balt=\"([^\"]*)\"", re.I)
#: Un import de modul din rețea, într-un script: `import("https://…")`, `import "https://…"` sau
#: `import mermaid from "https://…"` (mermaid, în șabloanele lab și reveal ale lui nbconvert).
_IMPORT_DIN_RETEA = r"\bimport\s*\(?\s*[\"'](https?://[^\"']+)|\bimport\b[^\"';]*?\bfrom\s*[\"'](https?://[^\"']+)"
#: Un script din pagină care importă, când rulează, un modul din rețea.
_SCRIPT_CU_IMPORT_DIN_RETEA = re.compile(r"<script\b[^>]*>(?:(?!</script>).)*?(?:" + _IMPORT_DIN_RETEA + r").*?</script>",
                                          re.I | re.S)


def resurse_din_retea(pagina: str) -> list[str]:
    """Adresele din rețea pe care browserul le-ar încărca singur la deschiderea paginii (scripturi,
    foi de stil, imagini, fonturi din CSS); linkurile pe care dai clic nu intră."""
    adrese = re.findall(r"<(?:script|img|iframe|source|video|audio)\b[^>]*\bsrc=\"(https?://[^\"]+)\"", pagina, re.I)
    adrese += re.findall(r"<link\b[^>]*\bhref=\"(https?://[^\"]+)\"", pagina, re.I)
    adrese += re.findall(r"url\(\s*['\"]?(https?://[^'\")]+)", pagina, re.I)
    adrese += re.findall(r"@import\s+['\"](https?://[^'\"]+)", pagina, re.I)
    adrese += [a or b for a, b in re.findall(_IMPORT_DIN_RETEA, pagina)]  # importuri de module în scripturi
    return adrese


def fara_retea(pagina: str) -> str:
    """Pagina fără nimic încărcat din rețea: fără scripturile de pe CDN (și configurația
    MathJax), fără foi de stil din rețea, iar imaginile din rețea (insigna Colab) devin textul lor
    alternativ."""
    pagina = _SCRIPT_DIN_RETEA.sub("", pagina)
    pagina = _CONFIG_MATHJAX.sub("", pagina)
    pagina = _SCRIPT_CU_IMPORT_DIN_RETEA.sub("", pagina)
    pagina = _LINK_DIN_RETEA.sub("", pagina)

    def text_alternativ(potrivire: re.Match) -> str:
        alt = _ALT.search(potrivire.group(0))
        return html.escape(alt.group(1) if alt and alt.group(1) else "imagine")

    return _IMAGINE_DIN_RETEA.sub(text_alternativ, pagina)


def descriere_masina(mediu: dict | None) -> str:
    """„NVIDIA H200 (torch 2.11.0+cu130)”, din secțiunea `mediu` a unui `rezultate.json`."""
    if not mediu:
        return "o mașină necunoscută"
    masina = mediu.get("gpu") if mediu.get("dispozitiv") == "cuda" else "un procesor fără GPU"
    if mediu.get("gpu_simulat"):
        masina = f"{mediu.get('gpu_real') or masina}, în profilul {mediu['gpu_simulat']} simulat"
    return f"{masina} (torch {mediu.get('torch', '?')})"


def pagina_statica(cale_notebook: Path, masina: str, data: str | None = None) -> str:
    """Pagina HTML a unui notebook executat, fără nimic din rețea, cu mașina lui deasupra."""
    from nbconvert import HTMLExporter

    nb = nbformat.read(cale_notebook, as_version=4)
    pagina, _ = HTMLExporter(template_name="lab", embed_images=True).from_notebook_node(
        nb, resources={"metadata": {"name": Path(cale_notebook).stem}})
    cand = f", la {html.escape(data)}" if data else ""
    banda = (
        '<div style="font-family: sans-serif; background: #fff3cd; border: 1px solid #e0c36a; padding: 8px 12px; '
        'margin: 8px;">'
        f"<strong>{html.escape(Path(cale_notebook).name)}</strong>, executat pe {html.escape(masina)}{cand}. "
        "Cifrele, tabelele și graficele de aici sunt ale acelei mașini, <strong>nu ale mașinii tale</strong>; "
        "notebook-ul, rulat la tine, le măsoară din nou.</div>"
    )
    pagina = re.sub(r"(<body\b[^>]*>)", lambda m: m.group(1) + banda, pagina, count=1)
    return fara_retea(pagina)


def construieste(din: Path, iesire: Path) -> list[Path]:
    """Paginile tuturor notebook-urilor din `din/executate/` și un cuprins (`index.html`), în
    `iesire`. Mașina și data vin din `din/rezultate.json`, dacă există."""
    din, iesire = Path(din), Path(iesire)
    executate = sorted((din / "executate").glob("*.ipynb"))
    if not executate:
        raise FileNotFoundError(f"nu găsesc notebook-uri executate în {din / 'executate'} (rulează întâi make validare)")
    rezultate = din / "rezultate.json"
    date = json.loads(rezultate.read_text(encoding="utf-8")) if rezultate.is_file() else {}
    masina = descriere_masina(date.get("mediu"))
    iesire.mkdir(parents=True, exist_ok=True)
    scrise = []
    for cale in executate:
        tinta = iesire / (cale.stem + ".html")
        tinta.write_text(pagina_statica(cale, masina, date.get("data")), encoding="utf-8")
        scrise.append(tinta)
    randuri = "".join(f'<li><a href="{html.escape(p.name)}">{html.escape(p.stem)}</a></li>\n' for p in scrise)
    cuprins = (
        '<!DOCTYPE html>\n<html lang="ro">\n<head><meta charset="utf-8"><title>Capitolele executate</title></head>\n'
        '<body style="font-family: sans-serif; max-width: 50em; margin: 2em auto;">\n'
        f"<h1>Capitolele executate</h1>\n<p>Executate pe {html.escape(masina)}"
        + (f", la {html.escape(date['data'])}" if date.get("data") else "")
        + ". Cifrele sunt ale acelei mașini.</p>\n"
        f"<ul>\n{randuri}</ul>\n</body>\n</html>\n"
    )
    (iesire / "index.html").write_text(cuprins, encoding="utf-8")
    return scrise


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Capitolele executate de o validare, ca pagini HTML statice, fără rețea.")
    parser.add_argument("--din", default="build/validare", help="dosarul validării (cu executate/ și rezultate.json)")
    parser.add_argument("--iesire", default="build/pagini", help="dosarul paginilor")
    argumente = parser.parse_args(argv)
    try:
        scrise = construieste(Path(argumente.din), Path(argumente.iesire))
    except FileNotFoundError as e:
        print(f"Eroare: {e}", file=sys.stderr)
        return 2
    print(f"Am scris {cu_substantiv(len(scrise), 'pagină', 'pagini')} și cuprinsul: {Path(argumente.iesire) / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
