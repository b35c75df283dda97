"""Fișa atelierului (`atelier/fisa.md`), gata de tipărit pe o singură pagină A4 (`make fisa`).

Fișa se scrie în Markdown, ca restul trusei. De aici iese o pagină HTML de sine stătătoare (stilul
în ea, nimic încărcat din rețea), așezată pentru tipar: A4, margini mici, caractere mici, tabele
strânse. Se tipărește din browser (*Print → Save as PDF* sau imprimanta), pe o pagină.

Dacă pe mașină există Chromium și pachetul Python `playwright`, comanda scrie și PDF-ul și
verifică numărul de pagini (o fișă care nu mai încape pe o pagină e o eroare: scurteaz-o).

    python -m curs_compilare.instructor.fisa [--iesire build/fisa] [--pdf | --pdf-daca-se-poate]
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import sys
from pathlib import Path

RADACINA = Path(__file__).resolve().parents[2]
FISA = RADACINA / "atelier" / "fisa.md"

#: Stilul paginii tipărite: A4 vertical, o singură coloană (tabelele sunt late), caractere de 7,9 pt.
STIL = """
@page { size: A4 portrait; margin: 7mm 8mm; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 7.9pt; line-height: 1.22;
       margin: 0; color: #111; }
h1 { font-size: 12.5pt; margin: 0 0 3pt 0; }
h2 { font-size: 9.5pt; margin: 5pt 0 2pt 0; padding-bottom: 1pt; border-bottom: 0.6pt solid #888; }
p, ol, ul { margin: 2pt 0; }
ol, ul { padding-left: 13pt; }
li { margin: 0; }
table { border-collapse: collapse; width: 100%; margin: 2pt 0; page-break-inside: avoid; }
th, td { border: 0.4pt solid #aaa; padding: 0.8pt 2.5pt; vertical-align: top; text-align: left; }
th { background: #e8e8e8; }
code { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 7.1pt; }
@media screen { body { max-width: 210mm; margin: 8mm auto; } }
"""


def fisa_html(text_md: str, titlu: str = "Fișa atelierului") -> str:
    """Pagina HTML a fișei: Markdown-ul (cu tabele) transformat, cu stilul de tipar înăuntru."""
    try:
        import mistune
    except ImportError as e:  # vine cu nbconvert, deci cu JupyterLab
        raise RuntimeError("Pentru fișă e nevoie de pachetul mistune (vine cu JupyterLab): pip install mistune") from e
    corp = mistune.create_markdown(plugins=["table"])(text_md)
    return (
        "<!DOCTYPE html>\n<html lang=\"ro\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(titlu)}</title>\n<style>{STIL}</style>\n</head>\n<body>\n{corp}</body>\n</html>\n"
    )


def numar_pagini_pdf(continut: bytes) -> int:
    """Câte pagini are un PDF (obiectele `/Type /Page`, fără `/Pages`)."""
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", continut))


def chromium() -> str | None:
    """Calea către Chromium (sau Chrome), dacă există pe mașină."""
    for nume in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        cale = shutil.which(nume)
        if cale:
            return cale
    return None


def tipareste_pdf(cale_html: Path, cale_pdf: Path) -> int:
    """Tipărește pagina în PDF cu Chromium (prin playwright), pe A4, cu stilul paginii; întoarce
    numărul de pagini. Aruncă RuntimeError, cu explicația, dacă lipsește Chromium sau playwright."""
    executabil = chromium()
    if executabil is None:
        raise RuntimeError("Nu găsesc Chromium pe mașină (de exemplu: apt-get install chromium).")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        raise RuntimeError("Pentru PDF e nevoie de pachetul playwright: pip install playwright") from e
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executabil, args=["--no-sandbox"])
        try:
            pagina = browser.new_page()
            pagina.goto(Path(cale_html).resolve().as_uri())
            pagina.pdf(path=str(cale_pdf), prefer_css_page_size=True, print_background=True)
        finally:
            browser.close()
    return numar_pagini_pdf(Path(cale_pdf).read_bytes())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Fișa atelierului, gata de tipărit pe o pagină A4.")
    parser.add_argument("--iesire", default="build/fisa", help="dosarul în care se scriu fisa.html (și fisa.pdf)")
    parser.add_argument("--pdf", action="store_true", help="și PDF-ul, cu Chromium (prin playwright), plus numărul de pagini")
    parser.add_argument("--pdf-daca-se-poate", action="store_true",
                        help="PDF-ul doar dacă există Chromium și playwright; altfel doar pagina HTML, fără eroare")
    argumente = parser.parse_args(argv)
    iesire = Path(argumente.iesire)
    iesire.mkdir(parents=True, exist_ok=True)
    cale_html = iesire / "fisa.html"
    cale_html.write_text(fisa_html(FISA.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"Fișa: {cale_html} (se tipărește din browser, pe A4)")
    if not (argumente.pdf or argumente.pdf_daca_se_poate):
        return 0
    try:
        pagini = tipareste_pdf(cale_html, iesire / "fisa.pdf")
    except RuntimeError as e:
        print(f"Fără PDF: {e}", file=sys.stderr)
        return 0 if argumente.pdf_daca_se_poate and not argumente.pdf else 2
    print(f"PDF: {iesire / 'fisa.pdf'}, {pagini} {'pagină' if pagini == 1 else 'pagini'}")
    if pagini != 1:
        print("Fișa nu mai încape pe o pagină A4: scurteaz-o.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
