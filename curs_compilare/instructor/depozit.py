"""Adresa publică a cursului — singurul loc unde e scrisă — și tot ce decurge din ea.

Insignele „Open in Colab” din README și din notebook-uri, precum și celula de pregătire
(care pe Colab clonează cursul și îi instalează pachetul) se generează de aici.
După ce schimbi `ADRESA`, rulează `make insigne`; testele verifică că totul e la zi.

    python -m curs_compilare.instructor.depozit            # rescrie README-ul și notebook-urile
    python -m curs_compilare.instructor.depozit --verifica # doar verifică (cod de ieșire 1 dacă nu e la zi)
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

#: Adresa publică a depozitului cursului (GitHub). Singura ei apariție scrisă de mână.
ADRESA = "https://github.com/curs-pytorch-ro/compilare-pytorch2"

#: Ramura din care deschide Colab notebook-urile.
RAMURA = "main"

#: Primul rând al celulei de pregătire, după care o recunoaștem.
MARCAJ_PREGATIRE = "# Pregătirea mediului"

_TIPAR_COLAB = re.compile(
    r"https://colab\.research\.google\.com/github/[^/\s)\"']+/[^/\s)\"']+/blob/[^/\s)\"']+/"
)
_TIPAR_CLONARE = re.compile(r"git clone (?:--depth 1 )?https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_-]+(?:\.git)?")

INSIGNA_IMAGINE = "https://colab.research.google.com/assets/colab-badge.svg"


def _proprietar_si_nume() -> str:
    return ADRESA.removeprefix("https://github.com/").strip("/")


def adresa_colab(cale_notebook: str) -> str:
    """Adresa la care Colab deschide notebook-ul (cale relativă la rădăcina cursului)."""
    return f"https://colab.research.google.com/github/{_proprietar_si_nume()}/blob/{RAMURA}/{cale_notebook}"


def insigna_colab(cale_notebook: str) -> str:
    """Insigna Markdown „Open in Colab” pentru un notebook."""
    return f"[![Deschide în Colab]({INSIGNA_IMAGINE})]({adresa_colab(cale_notebook)})"


def celula_pregatire() -> str:
    """Codul celulei de pregătire, identic în fiecare capitol și în fiecare soluție."""
    return f'''{MARCAJ_PREGATIRE} (aceeași celulă în fiecare capitol).
# Pe Colab: clonează cursul și îi instalează pachetul de ajutor. Oriunde: afișează mediul.
import importlib, os, subprocess, sys
if "google.colab" in sys.modules:
    os.environ["CURS_RADACINA"] = "/content/curs"
    if not os.path.isdir("/content/curs"):
        subprocess.run(["git", "clone", "-q", "--depth", "1", "{ADRESA}", "/content/curs"], check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "/content/curs"], check=True)
        importlib.invalidate_caches()

%matplotlib inline
import torch
from curs_compilare import afiseaza_mediul

MEDIU = afiseaza_mediul()'''


def rescrie_adrese(text: str) -> str:
    """Aduce la `ADRESA` legăturile Colab și comenzile `git clone` ale cursului dintr-un text."""
    text = _TIPAR_COLAB.sub(
        f"https://colab.research.google.com/github/{_proprietar_si_nume()}/blob/{RAMURA}/", text
    )
    return _TIPAR_CLONARE.sub(lambda m: m.group(0).split("https://")[0] + ADRESA + ".git", text)


def adrese_gasite(text: str) -> set[str]:
    """Adresele depozitului cursului din legăturile Colab și comenzile `git clone` ale unui text."""
    gasite = set()
    for potrivire in _TIPAR_CLONARE.findall(text):
        gasite.add(potrivire.split(" ")[-1].removesuffix(".git"))
    for potrivire in _TIPAR_COLAB.findall(text):
        parti = potrivire.split("/github/")[1].split("/")
        gasite.add(f"https://github.com/{parti[0]}/{parti[1]}")
    return gasite


def notebook_la_zi(cale: Path, radacina: Path) -> nbformat.NotebookNode:
    """Notebook-ul cu insigna și celula de pregătire regenerate (fără să-l scrie)."""
    nb = nbformat.read(cale, as_version=4)
    relativ = cale.resolve().relative_to(radacina.resolve()).as_posix()
    for celula in nb.cells:
        if celula.cell_type == "markdown" and "colab.research.google.com" in celula.source:
            celula.source = re.sub(
                r"\[!\[[^\]]*\]\(https://colab\.research\.google\.com/assets/colab-badge\.svg\)\]\([^)]*\)",
                insigna_colab(relativ),
                celula.source,
            )
        elif celula.cell_type == "code" and celula.source.startswith(MARCAJ_PREGATIRE):
            celula.source = celula_pregatire()
        elif celula.cell_type == "markdown":
            celula.source = rescrie_adrese(celula.source)
    return nb


def fisiere_de_sincronizat(radacina: Path) -> list[Path]:
    return sorted((radacina / "notebooks").glob("*.ipynb")) + sorted((radacina / "solutions").glob("*.ipynb"))


def sincronizeaza(radacina: Path, doar_verifica: bool = False) -> list[str]:
    """Aduce README-ul și notebook-urile la zi cu `ADRESA`. Întoarce fișierele care nu erau."""
    diferite = []
    readme = radacina / "README.md"
    if readme.is_file():
        vechi = readme.read_text(encoding="utf-8")
        nou = rescrie_adrese(vechi)
        if nou != vechi:
            diferite.append(str(readme.relative_to(radacina)))
            if not doar_verifica:
                readme.write_text(nou, encoding="utf-8")
    for cale in fisiere_de_sincronizat(radacina):
        vechi = cale.read_text(encoding="utf-8")
        nou = nbformat.writes(notebook_la_zi(cale, radacina)) + "\n"
        if nou != vechi:
            diferite.append(str(cale.relative_to(radacina)))
            if not doar_verifica:
                cale.write_text(nou, encoding="utf-8")
    return diferite


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verifica", action="store_true", help="doar verifică, nu scrie nimic")
    parser.add_argument("--radacina", default=".", help="dosarul cursului")
    argumente = parser.parse_args(argv)
    diferite = sincronizeaza(Path(argumente.radacina), doar_verifica=argumente.verifica)
    if argumente.verifica and diferite:
        print("Nu sunt la zi cu adresa cursului: " + ", ".join(diferite) + ". Rulează `make insigne`.")
        return 1
    print("Actualizate: " + ", ".join(diferite) if diferite else "Totul e la zi cu adresa cursului.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
